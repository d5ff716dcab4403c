import { describe, expect, it } from 'vitest';
import { fixture } from './fixtures.test-helper.js';
import { parseGoTestJson } from './go-test-json.js';
import { MAX_OUTPUT_BYTES } from './limits.js';

const event = (fields: Record<string, unknown>) => JSON.stringify({ Package: 'p', ...fields });

describe('parseGoTestJson', () => {
  it('reads go test -json output (generated with go 1.19): tests and subtests, not packages', () => {
    const report = parseGoTestJson(fixture('go-test.jsonl'));
    expect(report.tests.map((t) => [t.suite, t.name, t.status])).toEqual([
      ['example.com/sample', 'TestPasses', 'passed'],
      ['example.com/sample', 'TestFails', 'failed'],
      ['example.com/sample', 'TestSkipped', 'skipped'],
      ['example.com/sample', 'TestTable', 'failed'],
      ['example.com/sample', 'TestTable/ok', 'passed'],
      ['example.com/sample', 'TestTable/bad', 'failed'],
    ]);
    const failed = report.tests[1];
    expect(failed?.message).toBe('sample_test.go:12: got 2, want 3');
    expect(failed?.output).toContain('some output\n');
    expect(report.tests[0]?.output).toBeUndefined();
    expect(report.tests[2]?.message).toBe('sample_test.go:15: not today');
    expect(report.problems).toEqual([]);
  });

  it('skips lines that are not JSON events with a problem, and keeps going', () => {
    const text = [
      '# p',
      'not json at all',
      '[1,2]',
      event({ Action: 'pass', Test: 'TestA', Elapsed: 0.25 }),
    ].join('\n');
    const report = parseGoTestJson(text);
    expect(report.tests).toEqual([{ suite: 'p', name: 'TestA', status: 'passed', durationMs: 250 }]);
    expect(report.problems).toEqual([
      'line 1: not a go test -json event, skipped: # p',
      'line 2: not a go test -json event, skipped: not json at all',
      'line 3: not a go test -json event, skipped: [1,2]',
    ]);
  });

  it('marks a test that never finished as an error and names a package failing outside tests', () => {
    const text = [
      event({ Action: 'run', Test: 'TestHangs' }),
      event({ Action: 'output', Test: 'TestHangs', Output: 'panic: test timed out\n' }),
      event({ Action: 'fail', Elapsed: 600 }),
      event({ Action: 'fail', Package: 'q', Elapsed: 0 }),
    ].join('\n');
    const report = parseGoTestJson(text);
    expect(report.tests[0]).toMatchObject({ status: 'error', output: 'panic: test timed out\n' });
    expect(report.tests[0]?.message).toMatch(/never finished: the package failed/);
    expect(report.problems).toEqual([
      'package q failed outside any test (build error, panic in init, or timeout)',
    ]);
  });

  it('caps output per test with a marker', () => {
    const chunk = 'y'.repeat(1000) + '\n';
    const lines = Array.from({ length: 100 }, () => event({ Action: 'output', Test: 'T', Output: chunk }));
    const report = parseGoTestJson([...lines, event({ Action: 'fail', Test: 'T' })].join('\n'));
    expect(report.tests[0]?.output?.length).toBeLessThanOrEqual(MAX_OUTPUT_BYTES);
    expect(report.tests[0]?.output).toMatch(/\[cut: output over the limit\]$/);
  });

  it('refuses text with no event at all', () => {
    expect(() => parseGoTestJson('hello\nworld')).toThrow(/expected JSON events, one per line; found none/);
  });
});
