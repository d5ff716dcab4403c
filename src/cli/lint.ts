import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import {
  diagnosticText,
  lintText,
  type Diagnostic,
  type LintResult,
  type ManifestDocument,
} from '../pipeline/index.js';
import { languageOf } from '../pipeline/languages/index.js';
import type { CommandIO } from './io.js';
import { readLocalPipeline } from './program/local-program.js';

const USAGE = `Usage: svc lint [--trusted] [--json] FILE...

Checks pipeline files (the .drone.yml format; see docs/pipelines.md) and prints every problem as
  FILE:LINE:COLUMN: error: FIELD: what is wrong and what is expected
(warnings likewise), then a summary. Relative paths start at the working directory.
A Jsonnet (.jsonnet) or Starlark (.star) file runs first, as for a push of the working copy; the
problems of the YAML it produces are reported as "FILE (as converted):LINE:COLUMN" (see that YAML
with svc convert FILE), and a program that fails as "FILE: error: FILE:LINE:COLUMN: what failed".

Options:
  --trusted   lint as a trusted repository: privileged steps, host volumes, devices,
              network_mode, dns, extra_hosts, shm_size and in-memory volumes are allowed
  --json      print one JSON array with an entry per file instead:
              {"file", "documents": [{"kind", "type", "name", "steps", "services", "depends_on"}],
               "errors": [{"line", "column", "message"}], "warnings": [...]}
              (a file that cannot be read has one error at line 0, column 0)
  -h, --help  print this help

Exit codes: 0 every file is valid (warnings allowed); 1 a file has errors or cannot be read;
2 wrong usage (no file, unknown option).
`;

interface Options {
  trusted: boolean;
  json: boolean;
  files: string[];
}

/** `svc lint [--trusted] [--json] FILE...`; exit 0 all valid, 1 any invalid or unreadable, 2 bad usage. */
export async function lintCommand(args: readonly string[], io: CommandIO): Promise<number> {
  const parsed = parseArgs(args);
  if (parsed.kind === 'help') {
    io.stdout(USAGE);
    return 0;
  }
  if (parsed.kind === 'usage') {
    io.stderr(`svc lint: ${parsed.problem}\n\n${USAGE}`);
    return 2;
  }
  const reports: FileReport[] = [];
  for (const file of parsed.files) reports.push(await lintFile(file, io.cwd, parsed.trusted));
  if (parsed.json) io.stdout(`${JSON.stringify(reports.map(toJson), null, 2)}\n`);
  else io.stdout(reports.map(toText).join('') + summary(reports));
  return reports.every((report) => report.valid) ? 0 : 1;
}

type Parsed = ({ kind: 'lint' } & Options) | { kind: 'help' } | { kind: 'usage'; problem: string };

function parseArgs(args: readonly string[]): Parsed {
  const options: Options = { trusted: false, json: false, files: [] };
  let onlyFiles = false;
  for (const arg of args) {
    if (onlyFiles || arg === '-' || !arg.startsWith('-')) options.files.push(arg);
    else if (arg === '--') onlyFiles = true;
    else if (arg === '--trusted') options.trusted = true;
    else if (arg === '--json') options.json = true;
    else if (arg === '--help' || arg === '-h') return { kind: 'help' };
    else return { kind: 'usage', problem: `unknown option "${arg}"` };
  }
  if (options.files.length === 0) {
    return {
      kind: 'usage',
      problem: 'missing FILE: name at least one pipeline file, e.g. svc lint .drone.yml',
    };
  }
  return { kind: 'lint', ...options };
}

interface FileReport {
  readonly file: string;
  readonly valid: boolean;
  readonly result: LintResult | undefined;
  /** Why the file could not be read. */
  readonly unreadable: string | undefined;
}

async function lintFile(file: string, cwd: string, trusted: boolean): Promise<FileReport> {
  if (languageOf(file) !== undefined) return lintProgram(file, cwd, trusted);
  let text: string;
  try {
    text = await readFile(resolve(cwd, file), 'utf8');
  } catch (error) {
    return {
      file,
      valid: false,
      result: undefined,
      unreadable: `cannot read the file: ${readProblem(error)}`,
    };
  }
  const result = lintText(text, { trusted });
  return { file, valid: result.valid, result, unreadable: undefined };
}

/**
 * A Jsonnet or Starlark file: run as for a push of the working copy, then the YAML it produced is
 * linted; positions of those problems are in that YAML (`svc convert FILE` prints it).
 */
async function lintProgram(file: string, cwd: string, trusted: boolean): Promise<FileReport> {
  const read = await readLocalPipeline(resolve(cwd, file), cwd, { event: 'push', branch: undefined });
  if (!read.ok) return { file, valid: false, result: undefined, unreadable: read.message };
  const result = lintText(read.text, { trusted });
  return { file: `${file} (as converted)`, valid: result.valid, result, unreadable: undefined };
}

function readProblem(error: unknown): string {
  const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
  switch (code) {
    case 'ENOENT':
      return 'no such file';
    case 'EISDIR':
      return 'it is a directory; expected a pipeline file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    default:
      return error instanceof Error ? error.message : String(error);
  }
}

function toText(report: FileReport): string {
  if (report.unreadable !== undefined) return `${report.file}: error: ${report.unreadable}\n`;
  return (report.result?.diagnostics ?? [])
    .map((d) => `${report.file}:${d.line}:${d.column}: ${d.severity}: ${diagnosticText(d)}\n`)
    .join('');
}

function summary(reports: readonly FileReport[]): string {
  const count = (severity: Diagnostic['severity']): number =>
    reports.reduce(
      (total, report) =>
        total +
        (report.result?.diagnostics.filter((d) => d.severity === severity).length ?? 0) +
        (severity === 'error' && report.unreadable !== undefined ? 1 : 0),
      0,
    );
  const invalid = reports.filter((report) => !report.valid).length;
  const errors = count('error');
  const warnings = count('warning');
  const files = `${reports.length} file${reports.length === 1 ? '' : 's'}`;
  return `${files} checked: ${reports.length - invalid} valid, ${invalid} invalid (${plural(errors, 'error')}, ${plural(warnings, 'warning')})\n`;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

function toJson(report: FileReport): unknown {
  const diagnostics = report.result?.diagnostics ?? [];
  const entry = (d: Diagnostic) => ({ line: d.line, column: d.column, message: diagnosticText(d) });
  return {
    file: report.file,
    documents: (report.result?.manifest.documents ?? []).map(describeDocument),
    errors:
      report.unreadable !== undefined
        ? [{ line: 0, column: 0, message: report.unreadable }]
        : diagnostics.filter((d) => d.severity === 'error').map(entry),
    warnings: diagnostics.filter((d) => d.severity === 'warning').map(entry),
  };
}

function describeDocument(document: ManifestDocument): unknown {
  if (document.kind !== 'pipeline') {
    return { kind: document.kind, name: document.name, steps: [], services: [], depends_on: [] };
  }
  return {
    kind: document.kind,
    type: document.type,
    name: document.name,
    steps: document.steps.map((step) => step.name),
    services: document.services.map((service) => service.name),
    depends_on: [...document.dependsOn],
  };
}
