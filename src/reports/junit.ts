import { InvalidInputError } from '../core/errors.js';
import { parseXml, type XmlElement } from './xml.js';
import { parseSeconds } from './junit-time.js';
import { capText, MAX_MESSAGE_BYTES, MAX_OUTPUT_BYTES, MAX_TESTS_PER_REPORT, ProblemList } from './limits.js';
import type { ParsedReport, TestCaseResult, TestStatus } from './types.js';

/** The child elements that decide a test case's status, in order of precedence. */
const OUTCOMES: readonly [string, TestStatus][] = [
  ['error', 'error'],
  ['failure', 'failed'],
  ['skipped', 'skipped'],
];

/**
 * Reads JUnit XML as written by maven surefire, pytest, jest-junit, vitest, go-junit-report and
 * gotestsum: a `<testsuites>` or bare `<testsuite>` root, suites possibly nested, `<testcase>`
 * with `<failure>`, `<error>`, `<skipped>`, `<system-out>`, `<system-err>`. Other elements
 * (`<properties>`, surefire's `<flakyFailure>` and `<rerunFailure>`) are ignored. Throws
 * InvalidInputError for input that is not well-formed XML or has another root.
 */
export function parseJunit(text: string): ParsedReport {
  const root = parseXml(text);
  if (root.name !== 'testsuites' && root.name !== 'testsuite') {
    throw new InvalidInputError(
      `JUnit: expected a <testsuites> or <testsuite> root element, found <${root.name}>`,
    );
  }
  const reader = new JunitReader();
  reader.suite(root, '', undefined);
  reader.reportDropped();
  return { format: 'junit', tests: reader.tests, problems: reader.problems.toArray() };
}

class JunitReader {
  readonly tests: TestCaseResult[] = [];
  readonly problems = new ProblemList();
  private dropped = 0;

  suite(element: XmlElement, parentName: string, parentFile: string | undefined): void {
    // <testsuites> carries a tool-wide name ("vitest tests"), not the tests' group.
    const own = element.name === 'testsuite' ? (element.attributes.get('name') ?? '') : '';
    const name = own !== '' ? own : parentName;
    const file = element.attributes.get('file') ?? element.attributes.get('filepath') ?? parentFile;
    for (const child of element.children) {
      if (child.name === 'testsuite') this.suite(child, name, file);
      else if (child.name === 'testcase') this.testCase(child, name, file);
    }
  }

  private testCase(element: XmlElement, suiteName: string, suiteFile: string | undefined): void {
    if (this.tests.length >= MAX_TESTS_PER_REPORT) {
      this.dropped++;
      return;
    }
    const name = element.attributes.get('name') ?? '';
    const classname = element.attributes.get('classname') ?? '';
    // jest-junit's default classname repeats the test title; then the enclosing suite says more.
    const suite = classname !== '' && classname !== name ? classname : suiteName;
    const time = element.attributes.get('time');
    let durationMs = parseSeconds(time);
    if (durationMs === undefined) {
      this.problems.add(`test "${suite} ${name}": time "${time ?? ''}" is not a number of seconds; used 0`);
      durationMs = 0;
    }
    const result: TestCaseResult = { suite, name, status: 'passed', durationMs };
    const file = element.attributes.get('file') ?? suiteFile;
    if (file !== undefined) result.file = file;
    this.describeOutcome(element, result);
    this.tests.push(result);
  }

  private describeOutcome(element: XmlElement, result: TestCaseResult): void {
    const sections: string[] = [];
    for (const [tag, status] of OUTCOMES) {
      const outcome = element.children.find((child) => child.name === tag);
      if (!outcome) continue;
      result.status = status;
      const attribute = outcome.attributes.get('message')?.trim() ?? '';
      const body = outcome.text.trim();
      const message = attribute !== '' ? attribute : firstLine(body);
      if (message !== '') result.message = capText(message, MAX_MESSAGE_BYTES);
      if (body !== '' && body !== message) sections.push(body);
      break;
    }
    for (const child of element.children) {
      const body = child.text.trim();
      if (body === '') continue;
      if (child.name === 'system-out') sections.push(`--- stdout ---\n${body}`);
      if (child.name === 'system-err') sections.push(`--- stderr ---\n${body}`);
    }
    if (sections.length > 0) result.output = capText(sections.join('\n'), MAX_OUTPUT_BYTES);
  }

  reportDropped(): void {
    if (this.dropped === 0) return;
    this.problems.add(
      `only the first ${MAX_TESTS_PER_REPORT} tests were kept; ${this.dropped} more were dropped`,
    );
    this.dropped = 0;
  }
}

function firstLine(text: string): string {
  const newline = text.indexOf('\n');
  return (newline === -1 ? text : text.slice(0, newline)).trim();
}
