import type { SettingsKind } from '../kinds.js';
import { containerExecution } from './container.js';
import { runnerDashboard } from './dashboard.js';
import type { SettingDef, SettingGroup } from './define.js';
import { kubernetesRunner } from './kubernetes.js';
import { nomadRunner } from './nomad.js';
import { runnerConnection } from './runner-connection.js';
import { runnerLimits } from './runner-limits.js';
import { runnerPlugins } from './runner-plugins.js';
import { serverAccess, serverScheduling } from './server-access.js';
import { serverCore } from './server-core.js';
import { serverOidc } from './server-oidc.js';
import { serverConversion, serverDelivery } from './server-plugins.js';
import { serverScm } from './server-scm.js';
import { serverLocalGit } from './server-local-git.js';
import { serverStorage } from './server-storage.js';
import { vmRunner } from './vm.js';

/** The parts of the schema in the order of docs and of `svc config print`. */
export const GROUPS: readonly SettingGroup[] = [
  serverCore,
  serverScm,
  serverLocalGit,
  serverAccess,
  serverScheduling,
  serverStorage,
  serverConversion,
  serverDelivery,
  serverOidc,
  runnerConnection,
  runnerLimits,
  runnerPlugins,
  containerExecution,
  nomadRunner,
  vmRunner,
  kubernetesRunner,
  runnerDashboard,
];

/** Every setting definition, in order. A name appears once per kind (twice only with disjoint kinds). */
export const SCHEMA = [
  ...serverCore.settings,
  ...serverScm.settings,
  ...serverLocalGit.settings,
  ...serverAccess.settings,
  ...serverScheduling.settings,
  ...serverStorage.settings,
  ...serverConversion.settings,
  ...serverDelivery.settings,
  ...serverOidc.settings,
  ...runnerConnection.settings,
  ...runnerLimits.settings,
  ...runnerPlugins.settings,
  ...containerExecution.settings,
  ...nomadRunner.settings,
  ...vmRunner.settings,
  ...kubernetesRunner.settings,
  ...runnerDashboard.settings,
] as const;

/** The settings a kind accepts, in schema order. */
export function settingsFor(kind: SettingsKind): readonly SettingDef[] {
  return SCHEMA.filter((def: SettingDef) => def.kinds.includes(kind));
}

/** The kinds accepting a name (any definition of it); empty for an unknown name. */
export function kindsAccepting(name: string): readonly SettingsKind[] {
  return SCHEMA.filter((def: SettingDef) => def.name === name).flatMap((def: SettingDef) => def.kinds);
}
