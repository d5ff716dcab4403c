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
  if (isSet('SVC_UI_USERNAME') && !isSet('SVC_UI_PASSWORD')) {
    warnings.push({
      setting: 'SVC_UI_USERNAME',
      message: 'is set without SVC_UI_PASSWORD, so the dashboard stays disabled',
    });
  }
  return warnings;
}
