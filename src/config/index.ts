/**
 * The settings of svc: one schema (src/config/schema) drives parsing (`loadSettings`), printing
 * (`printableSettings`, `svc config print`) and docs/settings.md (`renderSettingsDoc`).
 */
export { renderSettingsDoc } from './docs.js';
export { isSettingsKind, SETTINGS_KINDS, type SettingsKind } from './kinds.js';
export { loadSettings, type LoadedSettings, type LoadOptions } from './load.js';
export { printableSettings } from './print.js';
export { settingWarnings, type Env, type SettingWarning } from './warnings.js';
export type {
  DockerRunnerSettings,
  KubernetesRunnerSettings,
  NomadRunnerSettings,
  ServerSettings,
  SettingsOf,
  SshRunnerSettings,
  VmRunnerSettings,
} from './types.js';
export type { JsonValue } from './values/codec.js';
export type { StringMap } from './values/collections.js';
export type { NamespaceRulesFile } from './values/path.js';
export type { UserCreate } from './values/user-create.js';
export { formatDuration, parseDuration } from './values/duration.js';
export { formatMemorySize, parseMemorySize } from './values/memory.js';
