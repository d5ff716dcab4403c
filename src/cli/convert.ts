import { resolve } from 'node:path';
import { BUILD_EVENTS, type BuildEvent } from '../core/build.js';
import type { CommandIO } from './io.js';
import { readLocalPipeline } from './program/local-program.js';

const USAGE = `Usage: svc convert [--event EVENT] [--branch NAME] FILE

Runs a Jsonnet (.jsonnet) or Starlark (.star, .starlark) pipeline file as the server runs it
(SVC_TMPLJSON_ENABLED, SVC_TMPLSCRIPT_ENABLED) and prints the YAML it produces. The program sees
the working copy's facts (repo.*, build.*: its commit, branch, author) and imports or loads other
files of the working copy. A YAML file is printed as it is.

Options:
  --event EVENT   the build event the program sees (default: push; ${BUILD_EVENTS.join(', ')})
  --branch NAME   the branch it sees (default: the current git branch, else main)
  -h, --help      print this help

Exit codes: 0 printed; 1 the program failed (FILE:LINE:COLUMN: what went wrong); 2 wrong usage.
`;

/** `svc convert FILE`: the YAML a configuration program stands for, on stdout. */
export async function convertCommand(args: readonly string[], io: CommandIO): Promise<number> {
  const parsed = parseArgs(args);
  if (typeof parsed !== 'string' && 'help' in parsed) {
    io.stdout(USAGE);
    return 0;
  }
  if (typeof parsed === 'string') {
    io.stderr(`svc convert: ${parsed}\n\n${USAGE}`);
    return 2;
  }
  const result = await readLocalPipeline(resolve(io.cwd, parsed.file), io.cwd, parsed);
  if (!result.ok) {
    io.stderr(`${result.message.startsWith(parsed.file) ? '' : `${parsed.file}: `}${result.message}\n`);
    return 1;
  }
  io.stdout(result.text.endsWith('\n') ? result.text : `${result.text}\n`);
  return 0;
}

interface ConvertArgs {
  file: string;
  event: BuildEvent;
  branch: string | undefined;
}

function parseArgs(args: readonly string[]): ConvertArgs | { help: true } | string {
  let file: string | undefined;
  let event: BuildEvent = 'push';
  let branch: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--help' || arg === '-h') return { help: true };
    if (arg === '--event') {
      const value = args[++i];
      if (!(BUILD_EVENTS as readonly string[]).includes(value ?? '')) {
        return `--event must be one of ${BUILD_EVENTS.join(', ')}, got ${value === undefined ? 'nothing' : `"${value}"`}`;
      }
      event = value as BuildEvent;
    } else if (arg === '--branch') {
      branch = args[++i];
      if (branch === undefined || branch === '') return '--branch needs a value';
    } else if (arg.startsWith('-') && arg !== '-') return `unknown option "${arg}"`;
    else if (file !== undefined) return `one FILE at a time, got "${file}" and "${arg}"`;
    else file = arg;
  }
  if (file === undefined) return 'missing FILE, e.g. svc convert .drone.jsonnet';
  return { file, event, branch };
}
