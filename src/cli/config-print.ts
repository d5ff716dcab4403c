import {
  isSettingsKind,
  loadSettings,
  printableSettings,
  SETTINGS_KINDS,
  settingWarnings,
  type Env,
  type SettingsKind,
} from '../config/index.js';
import { InvalidSettingsError } from '../core/errors.js';
import type { CommandIO } from './io.js';

const USAGE = `Usage: svc config print <kind>

Prints, as JSON, the settings a kind would run with: every setting it accepts, with defaults filled in,
unset settings as null and secrets as "[redacted]". Kinds: ${SETTINGS_KINDS.join(', ')}.
Settings are SVC_* environment variables: see docs/settings.md.
`;

/**
 * `svc config print <kind>`; `args` are the words after `svc config print`. Exit codes: 0 printed
 * (or --help), 2 invalid settings (one problem per line on stderr) or bad usage.
 */
export function configPrintCommand(args: readonly string[], env: Env, io: CommandIO): number {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(USAGE);
    return 0;
  }
  const [kind, ...extra] = args;
  if (kind === undefined || !isSettingsKind(kind) || extra.length > 0) {
    const why =
      kind === undefined
        ? 'missing kind'
        : isSettingsKind(kind)
          ? `unexpected ${extra.join(' ')}`
          : `unknown kind "${kind}"`;
    io.stderr(`svc config print: ${why}\n\n${USAGE}`);
    return 2;
  }
  return print(kind, env, io);
}

function print(kind: SettingsKind, env: Env, io: CommandIO): number {
  try {
    const { settings, warnings } = loadSettings(kind, env, { cwd: io.cwd });
    for (const warning of warnings) io.stderr(`warning: ${warning.setting}: ${warning.message}\n`);
    io.stdout(`${JSON.stringify(printableSettings(kind, settings), null, 2)}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof InvalidSettingsError)) throw error;
    // Warnings often explain a problem (a misspelt name leaves a required setting unset): show them first.
    for (const warning of settingWarnings(kind, env))
      io.stderr(`warning: ${warning.setting}: ${warning.message}\n`);
    for (const problem of error.problems) io.stderr(`${problem.setting}: ${problem.message}\n`);
    return 2;
  }
}
