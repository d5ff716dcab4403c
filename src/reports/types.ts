/** The formats parseReport understands; a caller may pass one as a hint to skip detection. */
export type ReportFormat = 'junit' | 'go-test-json' | 'tap';

export type TestStatus = 'passed' | 'failed' | 'error' | 'skipped';

/** One test case, whatever tool reported it. */
export interface TestCaseResult {
  /** The group the test belongs to: a JUnit class name or suite, a Go package, a TAP file. */
  suite: string;
  name: string;
  status: TestStatus;
  durationMs: number;
  /** Why it failed or was skipped, in one short text (capped at MAX_MESSAGE_BYTES). */
  message?: string;
  /** Details and captured output (stack trace, stdout, stderr), capped at MAX_OUTPUT_BYTES. */
  output?: string;
  file?: string;
}

/** What one report file held. */
export interface ParsedReport {
  format: ReportFormat;
  tests: TestCaseResult[];
  /** Non-fatal: what was skipped or cut, and why, so a user can tell the report is partial. */
  problems: string[];
}

/** The whole file could not be read: `error` says where (line, column) and what was expected. */
export interface ReportError {
  error: string;
}
