import type { SettingsKind } from './kinds.js';
import type { SettingDef } from './schema/define.js';
import { settingsFor } from './schema/index.js';
import type { SettingsOf } from './types.js';
import { REDACTED, type JsonValue } from './values/codec.js';

/**
 * The JSON object `svc config print` shows: every setting the kind accepts, in schema order, with
 * unset settings as null and secret values redacted (only the password of a datasource, only the
 * token of SVC_USER_CREATE, only the values of SVC_RUNNER_SECRETS).
 */
export function printableSettings<K extends SettingsKind>(
  kind: K,
  settings: SettingsOf<K>,
): Record<string, JsonValue> {
  const values: Readonly<Record<string, unknown>> = settings;
  return Object.fromEntries(settingsFor(kind).map((def) => [def.name, printValue(def, values[def.name])]));
}

/** One value as printed; also used by docs to show defaults. */
export function printValue(def: SettingDef, value: unknown): JsonValue {
  if (value === null || value === undefined) return null;
  if (!def.secret) return def.codec.print(value);
  return def.codec.redact === undefined ? REDACTED : def.codec.redact(value);
}
