/** Test report parsing: JUnit XML, go test -json and TAP into one shape (issue 36). */
export { parseReport } from './parse-report.js';
export { detectFormat } from './detect.js';
export {
  MAX_MESSAGE_BYTES,
  MAX_OUTPUT_BYTES,
  MAX_REPORT_BYTES,
  MAX_TESTS_PER_REPORT,
  MAX_XML_DEPTH,
} from './limits.js';
export type { ParsedReport, ReportError, ReportFormat, TestCaseResult, TestStatus } from './types.js';
