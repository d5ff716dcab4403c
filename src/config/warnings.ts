import type { SettingProblem } from '../core/errors.js';
import { kindsTitle, kindTitle, type SettingsKind } from './kinds.js';
import { kindsAccepting, SCHEMA, settingsFor } from './schema/index.js';
import { closestName } from './suggest.js';

/** Something about the settings worth telling the user that does not stop svc. */
export type SettingWarning = SettingProblem;

/** An environment as `process.env` gives it. */
export type Env = Readonly<Record<string, string | undefined>>;

// Tests set SVC_TEST_* variables for their own purposes; they are not settings.
const TEST_PREFIX = 'SVC_TEST_';

/**
 * The warnings of an environment for a kind: SVC_* variables the kind ignores (another kind's setting,
 * or an unknown name with the closest known one), and settings that are accepted but have no effect.
 */
export function settingWarnings(kind: SettingsKind, env: Env): SettingWarning[] {
  const accepted = new Set(settingsFor(kind).map((def) => def.name));
  const known = [...new Set(SCHEMA.map((def) => def.name))];
  const isSet = (name: string): boolean => accepted.has(name) && (env[name] ?? '') !== '';
  const warnings: SettingWarning[] = [];
  for (const name of Object.keys(env).sort()) {
    if (!name.startsWith('SVC_') || name.startsWith(TEST_PREFIX) || accepted.has(name)) continue;
    const others = kindsAccepting(name);
    if (others.length > 0) {
      warnings.push({
        setting: name,
        message: `is not a setting of ${kindTitle(kind)} and is ignored; it is accepted by ${kindsTitle(others)}`,
      });
      continue;
    }
    const suggestion = closestName(name, [...accepted]) ?? closestName(name, known);
    warnings.push({
      setting: name,
      message: `is not a known setting and is ignored${suggestion === undefined ? '' : `; did you mean ${suggestion}?`}`,
    });
  }
  warnings.push(...unpublishedImages(kind, isSet));
  if (isSet('SVC_UI_USERNAME') && !isSet('SVC_UI_PASSWORD')) {
    warnings.push({
      setting: 'SVC_UI_USERNAME',
      message: 'is set without SVC_UI_PASSWORD, so the dashboard stays disabled',
    });
  }
  return warnings;
}

/**
 * A cluster runner's images left at svc's own names (svc/svc, svc/git, svc/placeholder). svc builds
 * them locally and publishes them nowhere, so a cluster node that lacks one pulls that name from
 * Docker Hub, where whoever holds the `svc` account decides what runs with the stage's secrets.
 */
function unpublishedImages(kind: SettingsKind, isSet: (name: string) => boolean): SettingWarning[] {
  const images: Partial<Record<SettingsKind, readonly (readonly [string, ...string[]])[]>> = {
    nomad: [['SVC_JOB_IMAGE']],
    kubernetes: [['SVC_IMAGE_PLACEHOLDER'], ['SVC_IMAGE_CLONE', 'SVC_RUNNER_CLONE_IMAGE']],
  };
  return (images[kind] ?? [])
    .filter((names) => !names.some(isSet))
    .map(([name]) => ({
      setting: name,
      message:
        "is not set, so the cluster's nodes run svc's own image by its local name, which no registry " +
        'publishes: a node without it pulls that name from Docker Hub, which is not svc’s. Push the ' +
        'image `npm run images` built to your registry and set this to its name there (docs/install.md)',
    }));
}
