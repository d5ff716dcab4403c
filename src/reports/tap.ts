import { capText, MAX_MESSAGE_BYTES, MAX_OUTPUT_BYTES, MAX_TESTS_PER_REPORT, ProblemList } from './limits.js';
import type { ParsedReport, TestCaseResult } from './types.js';
import { InvalidInputError } from '../core/errors.js';

const TEST_LINE = /^(not )?ok\b(?:\s+(\d+))?(?:\s*-)?\s*(.*)$/;
const DIRECTIVE = /(?:^|\s)#\s*(SKIP|TODO)\S*\s*(.*)$/i;
/** Longest line we run a pattern over; longer descriptions are cut first. */
const MAX_LINE = 8192;
/** A diagnostics block longer than this is treated as unclosed, which keeps the scan linear. */
const MAX_YAML_LINES = 2000;

/**
 * Reads TAP 13/14: `ok` / `not ok` lines at the top level, `# SKIP` and `# TODO` directives and
 * the YAML diagnostics block (`---` … `...`) after a test, whose `message:` becomes the message
 * and which is kept as output. A failing TODO test is an expected failure, so it counts as skipped.
 * Indented subtest lines are left to their summary line. Throws InvalidInputError when no line is
 * a test line or a plan.
 */
export function parseTap(text: string): ParsedReport {
  const problems = new ProblemList();
  const tests: TestCaseResult[] = [];
  const lines = text.split('\n');
  let sawTap = false;
  let dropped = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] ?? '').replace(/\r$/, '').slice(0, MAX_LINE);
    if (/^(TAP version \d+|1\.\.\d+)/.test(line)) sawTap = true;
    if (line.startsWith('Bail out!'))
      problems.add(`line ${i + 1}: the run bailed out: ${line.slice(9).trim()}`);
    const match = TEST_LINE.exec(line);
    if (!match) continue;
    sawTap = true;
    const yaml = readYamlBlock(lines, i + 1);
    i += yaml.length === 0 ? 0 : yaml.length + 2;
    if (tests.length >= MAX_TESTS_PER_REPORT) {
      dropped++;
      continue;
    }
    tests.push(toResult(match[1] === undefined, match[3] ?? '', yaml));
  }
  if (!sawTap) throw new InvalidInputError('TAP: expected a plan (1..N) or ok / not ok lines; found none');
  if (dropped > 0)
    problems.add(`only the first ${MAX_TESTS_PER_REPORT} tests were kept; ${dropped} more were dropped`);
  return { format: 'tap', tests, problems: problems.toArray() };
}

function toResult(ok: boolean, rest: string, yaml: string[]): TestCaseResult {
  const directive = DIRECTIVE.exec(rest);
  const name = (directive ? rest.slice(0, directive.index) : rest).trim();
  const kind = directive?.[1]?.toUpperCase();
  const reason = directive?.[2]?.trim() ?? '';
  const result: TestCaseResult = { suite: '', name, status: ok ? 'passed' : 'failed', durationMs: 0 };
  if (kind === 'SKIP' || (kind === 'TODO' && !ok)) {
    result.status = 'skipped';
    if (reason !== '' || kind === 'TODO') result.message = kind === 'TODO' ? `TODO ${reason}`.trim() : reason;
  }
  // TAP leaves the key open: tape and others write `message`, node:test writes `error`.
  const yamlMessage = yamlValue(yaml, 'message') ?? yamlValue(yaml, 'error');
  if (yamlMessage !== undefined && result.status === 'failed')
    result.message = capText(yamlMessage, MAX_MESSAGE_BYTES);
  const duration = Number(yamlValue(yaml, 'duration_ms'));
  if (Number.isFinite(duration) && duration >= 0) result.durationMs = Math.round(duration);
  if (yaml.length > 0 && (result.status === 'failed' || kind === 'TODO'))
    result.output = capText(yaml.join('\n'), MAX_OUTPUT_BYTES);
  return result;
}

/** The lines between an indented `---` right after a test line and its closing `...`. */
function readYamlBlock(lines: string[], from: number): string[] {
  if (!/^\s+---\s*$/.test(lines[from] ?? '')) return [];
  const indent = (lines[from] ?? '').indexOf('-');
  const last = Math.min(lines.length, from + 1 + MAX_YAML_LINES);
  for (let end = from + 1; end < last; end++) {
    const line = lines[end] ?? '';
    if (/^\s+\.\.\.\s*$/.test(line)) return lines.slice(from + 1, end).map((l) => l.slice(indent));
  }
  return [];
}

/**
 * A top-level scalar of the YAML block, unquoted. A block scalar (`|-`, `>`) gives its first
 * non-empty line, which is what a one-line message needs.
 */
function yamlValue(yaml: string[], key: string): string | undefined {
  const at = yaml.findIndex((l) => l.startsWith(`${key}:`));
  if (at === -1) return undefined;
  const value = (yaml[at] ?? '').slice(key.length + 1).trim();
  if (/^[|>][-+]?$/.test(value)) {
    const body = yaml.slice(at + 1).find((l) => l.trim() !== '');
    return body !== undefined && /^\s/.test(body) ? body.trim() : '';
  }
  const quoted = /^(["'])(.*)\1$/.exec(value);
  return quoted ? (quoted[2] ?? '') : value;
}
