import { InvalidSettingsError, type SettingProblem } from '../core/errors.js';
import type { SettingsKind } from './kinds.js';
import { crossSettingProblems } from './rules.js';
import type { SettingDef } from './schema/define.js';
import { settingsFor } from './schema/index.js';
import type { SettingsOf } from './types.js';
import { fail, ok, type Parsed } from './values/codec.js';
import { settingWarnings, type Env, type SettingWarning } from './warnings.js';

/** Where loadSettings resolves relative paths. */
export interface LoadOptions {
  /** Relative paths in settings are resolved against this directory. */
  readonly cwd: string;
}

/** The parsed settings of a kind and the warnings worth showing the user. */
export interface LoadedSettings<K extends SettingsKind> {
  readonly settings: SettingsOf<K>;
  readonly warnings: SettingWarning[];
}

/**
 * Parses the settings of a kind from the SVC_* variables of `env` (an empty value counts as unset).
 * Throws InvalidSettingsError with every problem found: bad values, missing required settings,
 * unreadable files, and settings that only make sense together.
 */
export function loadSettings<K extends SettingsKind>(
  kind: K,
  env: Env,
  options: LoadOptions,
): LoadedSettings<K> {
  const raw = svcValues(env);
  const defs = settingsFor(kind);
  const values = new Map<string, unknown>();
  const problems: SettingProblem[] = [];
  for (const def of defs) {
    const parsed = resolveSetting(def, raw, options.cwd);
    if (parsed.ok) values.set(def.name, parsed.value);
    else if (parsed.message !== undefined) problems.push({ setting: def.name, message: parsed.message });
  }
  const accepted = new Set(defs.map((def) => def.name));
  problems.push(
    ...crossSettingProblems({
      isSet: (name) => accepted.has(name) && raw[name] !== undefined,
      value: (name) => values.get(name),
    }),
  );
  if (problems.length > 0) throw new InvalidSettingsError(problems);
  // The values were produced by each definition's own codec, so they have the types SettingsOf derives.
  const settings = Object.fromEntries(values) as SettingsOf<K>;
  return { settings, warnings: settingWarnings(kind, env) };
}

function resolveSetting(
  def: SettingDef,
  raw: Readonly<Record<string, string>>,
  cwd: string,
): Parsed<unknown> {
  const value = raw[def.name];
  const ctx = { cwd, env: raw, secret: def.secret };
  if (value !== undefined) return def.codec.parse(value, ctx);
  if (def.whenUnset !== undefined) return def.whenUnset(ctx);
  if (def.default !== undefined) return ok(def.default);
  if (def.required) return fail(`is required but not set; expected ${def.codec.expected}`);
  return ok(null);
}

/** The non-empty SVC_* values of an environment. */
function svcValues(env: Env): Readonly<Record<string, string>> {
  return Object.fromEntries(
    Object.entries(env).filter(
      (entry): entry is [string, string] =>
        entry[0].startsWith('SVC_') && entry[1] !== undefined && entry[1] !== '',
    ),
  );
}
