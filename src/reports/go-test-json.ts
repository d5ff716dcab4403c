import { InvalidInputError } from '../core/errors.js';
import { capText, MAX_MESSAGE_BYTES, MAX_OUTPUT_BYTES, MAX_TESTS_PER_REPORT, ProblemList } from './limits.js';
import type { ParsedReport, TestCaseResult } from './types.js';

/** The fields of a `go test -json` event (test2json) that matter here. */
interface GoEvent {
  Action: string;
  Package?: string;
  Test?: string;
  Elapsed?: number;
  Output?: string;
}

interface GoTest {
  result: TestCaseResult;
  finished: boolean;
  output: string[];
  outputBytes: number;
  outputCut: boolean;
}

/** A `t.Errorf` / `t.Skip` line as go test prints it: indented `file_test.go:12: text`. */
const LOCATED_LINE = /^\s*[\w./-]+\.go:\d+: /;

/**
 * Reads `go test -json` output: one JSON event per line. Each test and subtest (`TestA/sub`) is
 * a result, grouped by package; package-level events are not tests, but a failed package with no
 * failed test (build error, panic, timeout) is a problem. Lines that are not JSON events (build
 * output mixed in with 2>&1) are skipped with a problem. Throws InvalidInputError when no line
 * at all is an event.
 */
export function parseGoTestJson(text: string): ParsedReport {
  const problems = new ProblemList();
  const tests = new Map<string, GoTest>();
  const failedPackages = new Set<string>();
  let events = 0;
  let dropped = 0;
  let lineNo = 0;
  for (let start = 0; start < text.length;) {
    const newline = text.indexOf('\n', start);
    const end = newline === -1 ? text.length : newline;
    const line = text.slice(start, end).trim();
    start = end + 1;
    lineNo++;
    if (line === '') continue;
    const event = readEvent(line);
    if (!event) {
      problems.add(`line ${lineNo}: not a go test -json event, skipped: ${capText(line, 120)}`);
      continue;
    }
    events++;
    const pkg = event.Package ?? '';
    if (event.Test === undefined) {
      if (event.Action === 'fail') failedPackages.add(pkg);
      continue;
    }
    const key = `${pkg}\u0000${event.Test}`;
    let test = tests.get(key);
    if (!test) {
      if (tests.size >= MAX_TESTS_PER_REPORT) {
        dropped++;
        continue;
      }
      const result: TestCaseResult = { suite: pkg, name: event.Test, status: 'error', durationMs: 0 };
      test = { result, finished: false, output: [], outputBytes: 0, outputCut: false };
      tests.set(key, test);
    }
    apply(test, event);
  }
  if (events === 0)
    throw new InvalidInputError('go test -json: expected JSON events, one per line; found none');
  if (dropped > 0)
    problems.add(
      `only the first ${MAX_TESTS_PER_REPORT} tests were kept; ${dropped} events of more tests were dropped`,
    );
  const results = [...tests.values()].map((test) => finish(test, failedPackages));
  for (const pkg of failedPackages) {
    if (!results.some((r) => r.suite === pkg && r.status !== 'passed' && r.status !== 'skipped')) {
      problems.add(`package ${pkg} failed outside any test (build error, panic in init, or timeout)`);
    }
  }
  return { format: 'go-test-json', tests: results, problems: problems.toArray() };
}

function readEvent(line: string): GoEvent | undefined {
  if (!line.startsWith('{')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v.Action !== 'string') return undefined;
  const event: GoEvent = { Action: v.Action };
  if (typeof v.Package === 'string') event.Package = v.Package;
  if (typeof v.Test === 'string') event.Test = v.Test;
  if (typeof v.Elapsed === 'number') event.Elapsed = v.Elapsed;
  if (typeof v.Output === 'string') event.Output = v.Output;
  return event;
}

function apply(test: GoTest, event: GoEvent): void {
  switch (event.Action) {
    case 'output':
      if (event.Output !== undefined) keepOutput(test, event.Output);
      return;
    case 'pass':
    case 'fail':
    case 'skip':
      test.finished = true;
      test.result.status =
        event.Action === 'pass' ? 'passed' : event.Action === 'fail' ? 'failed' : 'skipped';
      if (event.Elapsed !== undefined && event.Elapsed >= 0)
        test.result.durationMs = Math.round(event.Elapsed * 1000);
      return;
    default:
      // run, pause, cont, bench, start: nothing to record.
      return;
  }
}

function keepOutput(test: GoTest, chunk: string): void {
  if (test.outputBytes + chunk.length > MAX_OUTPUT_BYTES) {
    test.outputCut = true;
    return;
  }
  test.output.push(chunk);
  test.outputBytes += chunk.length;
}

function finish(test: GoTest, failedPackages: Set<string>): TestCaseResult {
  const result = test.result;
  const output = test.output.join('');
  if (!test.finished) {
    // A test that never ended: the package panicked or timed out while it ran.
    result.message = failedPackages.has(result.suite)
      ? 'the test never finished: the package failed while it ran (panic or timeout)'
      : 'the test never finished: the report ends before its result';
  } else if (result.status === 'failed' || result.status === 'skipped') {
    const located = output.split('\n').find((line) => LOCATED_LINE.test(line));
    if (located !== undefined) result.message = capText(located.trim(), MAX_MESSAGE_BYTES);
  }
  if (result.status !== 'passed' && output !== '') {
    const cut = test.outputCut ? '\n… [cut: output over the limit]' : '';
    result.output = capText(output + cut, MAX_OUTPUT_BYTES);
  }
  return result;
}
