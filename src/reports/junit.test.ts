import { describe, expect, it } from 'vitest';
import { fixture } from './fixtures.test-helper.js';
import { parseJunit } from './junit.js';
import { parseSeconds } from './junit-time.js';
import { MAX_MESSAGE_BYTES, MAX_OUTPUT_BYTES, MAX_TESTS_PER_REPORT } from './limits.js';

const statuses = (xml: string) => parseJunit(fixture(xml)).tests.map((t) => [t.name, t.status]);

describe('parseJunit on real and dialect fixtures', () => {
  it('vitest --reporter=junit (generated)', () => {
    const report = parseJunit(fixture('vitest-junit.xml'));
    expect(statuses('vitest-junit.xml')).toEqual([
      ['math > adds', 'passed'],
      ['math > fails <on> & purpose', 'failed'],
      ['math > skipped one', 'skipped'],
    ]);
    const failed = report.tests[1];
    expect(failed?.suite).toBe('math.test.ts');
    expect(failed?.message).toBe('expected 2 to be 3 // Object.is equality');
    expect(failed?.output).toContain('--- stdout ---\nsome output');
    expect(report.problems).toEqual([]);
  });

  it('pytest --junitxml (generated), including a setup error', () => {
    const report = parseJunit(fixture('pytest-junit.xml'));
    expect(statuses('pytest-junit.xml')).toEqual([
      ['test_passes', 'passed'],
      ['test_fails', 'failed'],
      ['test_skipped', 'skipped'],
      ['test_errors', 'error'],
    ]);
    expect(report.tests[1]?.message).toBe('AssertionError: math is <broken> & sad\nassert (1 + 1) == 3');
    expect(report.tests[2]?.message).toBe('not today');
    expect(report.tests[3]?.output).toContain('RuntimeError: fixture exploded');
  });

  it('surefire: bare <testsuite> root, CDATA, times with commas', () => {
    const tests = parseJunit(fixture('surefire-junit.xml')).tests;
    expect(tests.map((t) => [t.status, t.durationMs])).toEqual([
      ['passed', 3],
      ['failed', 15],
      ['error', 1_200_001],
      ['skipped', 0],
    ]);
    expect(tests[1]?.message).toBe('expected: <2> but was: <3>');
    expect(tests[2]?.output).toContain('--- stderr ---\nwarning: no data');
  });

  it('jest-junit: classname repeating the title gives way to the suite; file attribute kept', () => {
    const tests = parseJunit(fixture('jest-junit.xml')).tests;
    expect(tests.map((t) => [t.suite, t.status, t.file])).toEqual([
      ['math', 'passed', 'src/math.test.js'],
      ['math', 'failed', 'src/math.test.js'],
      ['math', 'skipped', 'src/math.test.js'],
    ]);
    expect(tests[1]?.message).toBe('Error: expect(received).toBe(expected) // Object.is equality');
  });

  it('gotestsum: suites per package, subtests, character references in bodies', () => {
    const tests = parseJunit(fixture('gotestsum-junit.xml')).tests;
    expect(tests.map((t) => [t.suite, t.name, t.status])).toContainEqual([
      'example.com/sample',
      'TestTable/bad',
      'failed',
    ]);
    expect(tests[1]?.output).toContain('sample_test.go:12: got 2, want 3');
  });
});

describe('parseJunit edge cases', () => {
  it('nested suites pass their name and file down; <testsuites> name is not a group', () => {
    const xml = `<testsuites name="all"><testsuite name="outer" file="a.php"><testsuite name="inner">
      <testcase name="t"/></testsuite><testcase name="u" time=""/></testsuite></testsuites>`;
    expect(parseJunit(xml).tests.map((t) => [t.suite, t.name, t.file])).toEqual([
      ['inner', 't', 'a.php'],
      ['outer', 'u', 'a.php'],
    ]);
  });

  it('reports an unreadable time as a problem and uses 0', () => {
    const report = parseJunit('<testsuite name="s"><testcase name="t" time="soon"/></testsuite>');
    expect(report.tests[0]?.durationMs).toBe(0);
    expect(report.problems).toEqual(['test "s t": time "soon" is not a number of seconds; used 0']);
  });

  it('refuses another root element', () => {
    expect(() => parseJunit('<html/>')).toThrow(
      /expected a <testsuites> or <testsuite> root element, found <html>/,
    );
  });

  it('caps message, output and the number of tests', () => {
    const long = 'x'.repeat(200_000);
    const one = `<testcase name="t"><failure message="${long}">${long}z</failure></testcase>`;
    const [test] = parseJunit(`<testsuite>${one}</testsuite>`).tests;
    expect(new TextEncoder().encode(test?.message).length).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
    expect(new TextEncoder().encode(test?.output).length).toBeLessThanOrEqual(MAX_OUTPUT_BYTES);
    expect(test?.output).toMatch(/\[cut: \d+ more bytes\]$/);
    const many = `<testsuite>${'<testcase name="t"/>'.repeat(MAX_TESTS_PER_REPORT + 5)}</testsuite>`;
    const report = parseJunit(many);
    expect(report.tests).toHaveLength(MAX_TESTS_PER_REPORT);
    expect(report.problems).toEqual([
      `only the first ${MAX_TESTS_PER_REPORT} tests were kept; 5 more were dropped`,
    ]);
  });
});

describe('parseSeconds', () => {
  it.each([
    [undefined, 0],
    ['', 0],
    ['0.012', 12],
    ['1,234.5', 1_234_500],
    ['1.234,5', 1_234_500],
    ['0,5', 500],
    ['0,015', 15],
    ['12', 12_000],
    ['-1', undefined],
    ['abc', undefined],
  ])('%s → %s ms', (raw, ms) => {
    expect(parseSeconds(raw)).toBe(ms);
  });
});
