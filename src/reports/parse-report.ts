import { SvcError } from '../core/errors.js';
import { detectFormat } from './detect.js';
import { parseGoTestJson } from './go-test-json.js';
import { parseJunit } from './junit.js';
import { parseTap } from './tap.js';
import { MAX_REPORT_BYTES } from './limits.js';
import type { ParsedReport, ReportError, ReportFormat } from './types.js';

const MiB = 1024 * 1024;

/**
 * Parses one test report into the common shape. Never throws for bad input: a file that cannot be
 * read at all gives `{ error }` saying where and what was expected; smaller trouble is listed in
 * `problems`. Bytes are checked against MAX_REPORT_BYTES before anything else and must be UTF-8.
 * `hint` skips detection when the caller knows which tool wrote the file.
 */
export function parseReport(input: string | Uint8Array, hint?: ReportFormat): ParsedReport | ReportError {
  const size = typeof input === 'string' ? input.length : input.byteLength;
  if (size > MAX_REPORT_BYTES) {
    return {
      error: `report is ${(size / MiB).toFixed(1)} MiB, over the ${MAX_REPORT_BYTES / MiB} MiB limit`,
    };
  }
  let text: string;
  if (typeof input === 'string') text = input;
  else {
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(input);
    } catch {
      return { error: 'report is not valid UTF-8 text (binary file?)' };
    }
  }
  const format = hint ?? detectFormat(text);
  if (format === undefined) {
    return { error: 'unrecognised report: expected JUnit XML, go test -json output or TAP' };
  }
  try {
    return parseAs(format, text);
  } catch (error) {
    if (error instanceof SvcError) return { error: error.message };
    // A bug of ours must not take the caller down either; say what happened.
    return { error: `report could not be parsed: ${String(error)}` };
  }
}

function parseAs(format: ReportFormat, text: string): ParsedReport {
  switch (format) {
    case 'junit':
      return parseJunit(text);
    case 'go-test-json':
      return parseGoTestJson(text);
    case 'tap':
      return parseTap(text);
  }
}
