import { isSettingsKind, SETTINGS_KINDS, type Env, type SettingsKind } from '../config/index.js';
import { readEnvFile } from '../runner/remote/env-file.js';
import type { CommandIO } from './io.js';
import { DRONE_USAGE } from './migrate/drone/usage.js';
import { translateDroneSettings, type Translation } from './migrate/drone-settings.js';

const SETTINGS_USAGE = `Usage: svc migrate settings [--kind KIND] [FILE]

Reads a Drone server's or runner's settings (the DRONE_* variables of FILE, an env file of NAME=value
lines as docker --env-file reads, or of this environment without FILE) and prints the SVC_* settings
of KIND that stand for them, as an env file, with the Drone settings svc has no use for and why.
KIND: ${SETTINGS_KINDS.join(', ')} (default server). Check the result with svc config print KIND.
`;

const USAGE = `Moving from Drone (docs/migrating-from-drone.md):

${SETTINGS_USAGE}
${DRONE_USAGE}`;

/**
 * `svc migrate settings` (exit codes: 0 printed, 1 nothing to translate, 2 bad usage or unreadable
 * file) and `svc migrate drone` (loaded only when run: it opens databases).
 */
export function migrateCommand(args: readonly string[], env: Env, io: CommandIO): number | Promise<number> {
  const [what, ...rest] = args;
  const help = rest.includes('--help') || rest.includes('-h');
  if (what === '--help' || what === '-h' || (help && what !== 'settings' && what !== 'drone')) {
    io.stdout(USAGE);
    return 0;
  }
  if (what === 'drone') {
    if (help) {
      io.stdout(DRONE_USAGE);
      return 0;
    }
    return import('./migrate/drone-command.js').then(({ migrateDroneCommand }) =>
      migrateDroneCommand(rest, env, io),
    );
  }
  if (what !== 'settings') {
    io.stderr(
      `svc migrate: unknown or missing subcommand ${what ?? ''}; expected: settings, drone\n\n${USAGE}`,
    );
    return 2;
  }
  if (help) {
    io.stdout(SETTINGS_USAGE);
    return 0;
  }
  const parsed = parseArgs(rest);
  if (typeof parsed === 'string') {
    io.stderr(`svc migrate settings: ${parsed}\n\n${SETTINGS_USAGE}`);
    return 2;
  }
  let source: Env = env;
  if (parsed.file !== undefined) {
    try {
      source = readEnvFile(parsed.file);
    } catch (error) {
      io.stderr(`svc migrate settings: ${error instanceof Error ? error.message : String(error)}\n`);
      return 2;
    }
  }
  const translation = translateDroneSettings(parsed.kind, source);
  if (translation.carried.length + translation.dropped.length === 0) {
    io.stderr(`svc migrate settings: no DRONE_* variables in ${parsed.file ?? 'the environment'}\n`);
    return 1;
  }
  io.stdout(render(parsed.kind, translation));
  return 0;
}

function parseArgs(args: readonly string[]): { kind: SettingsKind; file?: string } | string {
  let kind: string = 'server';
  let file: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--kind' || arg.startsWith('--kind=')) {
      kind = arg === '--kind' ? (args[++i] ?? '') : arg.slice('--kind='.length);
    } else if (arg.startsWith('-')) {
      return `unknown option ${arg}`;
    } else if (file === undefined) {
      file = arg;
    } else {
      return `one file at most (got ${file} and ${arg})`;
    }
  }
  if (!isSettingsKind(kind)) return `unknown kind "${kind}"; expected one of ${SETTINGS_KINDS.join(', ')}`;
  return file === undefined ? { kind } : { kind, file };
}

/** The env file: settings carried over (with what to check), then what was not, as comments. */
function render(kind: SettingsKind, { carried, dropped }: Translation): string {
  const lines = [`# svc settings of ${kind}, from Drone's (svc migrate settings)`];
  for (const setting of carried) {
    if (/[\r\n]/.test(setting.value)) {
      lines.push(
        `# ${setting.from}: its value has line breaks; set ${setting.name} from a file or secret instead`,
      );
      continue;
    }
    lines.push(`# ${setting.from}${setting.note === undefined ? '' : `: ${setting.note}`}`);
    lines.push(`${setting.name}=${setting.value}`);
  }
  if (dropped.length > 0) lines.push('', '# Not carried over:');
  for (const setting of dropped) lines.push(`# ${setting.from}: ${setting.why}`);
  return `${lines.join('\n')}\n`;
}
