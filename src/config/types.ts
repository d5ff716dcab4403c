import type { SettingsKind } from './kinds.js';
import type { SettingDef } from './schema/define.js';
import type { SCHEMA } from './schema/index.js';

type Definition = (typeof SCHEMA)[number];

/** The definitions accepted by kind K (distributes over the union of definitions). */
type ForKind<D, K extends SettingsKind> =
  D extends SettingDef<string, infer DK, unknown, boolean> ? (K extends DK ? D : never) : never;

/** The value of a definition: its type, or `| null` when it can be unset without a default. */
type ValueOf<D> =
  D extends SettingDef<string, SettingsKind, infer T, infer A> ? (A extends true ? T : T | null) : never;

/** The parsed settings of a kind, keyed by setting name, typed from the schema. */
export type SettingsOf<K extends SettingsKind> = {
  readonly [D in ForKind<Definition, K> as D['name']]: ValueOf<D>;
};

/** The settings of `svc server`. */
export type ServerSettings = SettingsOf<'server'>;
/** The settings of `svc runner docker`. */
export type DockerRunnerSettings = SettingsOf<'docker'>;
/** The settings of `svc runner nomad`. */
export type NomadRunnerSettings = SettingsOf<'nomad'>;
/** The settings of `svc runner vm`. */
export type VmRunnerSettings = SettingsOf<'vm'>;
/** The settings of `svc runner kubernetes`. */
export type KubernetesRunnerSettings = SettingsOf<'kubernetes'>;
/** The settings of `svc runner ssh`. */
export type SshRunnerSettings = SettingsOf<'ssh'>;
