import { RUNNER_KINDS, type RunnerKind } from '../core/runner.js';

/** The six settings kinds: the server and the five runner kinds, in the order docs list them. */
export const SETTINGS_KINDS = ['server', ...RUNNER_KINDS] as const;
/** What `loadSettings` and `svc config print` are asked for: the server or a runner kind. */
export type SettingsKind = 'server' | RunnerKind;

/** The spec's one-letter runner codes (its "Kinds" column) and the runner kinds they stand for. */
const RUNNER_CODES = { C: 'docker', J: 'nomad', V: 'vm', K: 'kubernetes', R: 'ssh' } as const;
/** C, J, V, K or R. */
export type RunnerCode = keyof typeof RUNNER_CODES;

/** The kinds of a server-only setting. */
export const SERVER = ['server'] as const;

/** The runner kinds of a setting, written with the spec's codes so that schema rows read like its tables. */
export function runners<const C extends RunnerCode>(...codes: C[]): readonly (typeof RUNNER_CODES)[C][] {
  return codes.map((code) => RUNNER_CODES[code]);
}

/** Narrows a command-line word to a settings kind. */
export function isSettingsKind(value: string): value is SettingsKind {
  return (SETTINGS_KINDS as readonly string[]).includes(value);
}

/** "the server" or "the docker runner", for messages. */
export function kindTitle(kind: SettingsKind): string {
  return kind === 'server' ? 'the server' : `the ${kind} runner`;
}

/** "the server and the docker runner", for messages naming who accepts a setting. */
export function kindsTitle(kinds: readonly SettingsKind[]): string {
  const titles = kinds.map(kindTitle);
  if (titles.length <= 1) return titles.join('');
  return `${titles.slice(0, -1).join(', ')} and ${titles.at(-1) ?? ''}`;
}
