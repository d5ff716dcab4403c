import type { JsonValue, SettingValue } from '../types.js';

/** The variable a plugin reads a setting from: `PLUGIN_` and the name upper-cased, `-` as `_`. */
export function pluginVariable(name: string): string {
  return `PLUGIN_${name.toUpperCase().replaceAll('-', '_')}`;
}

/**
 * A setting's value as the plugin reads it, the way Drone encodes it: strings as they are, numbers and
 * booleans as text, a list of plain values joined with commas, anything else (maps, lists holding maps
 * or lists) as JSON.
 */
export function encodeSetting(value: JsonValue): string {
  if (value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && value.every((item) => item === null || typeof item !== 'object')) {
    return value.map((item) => (item === null ? '' : String(item))).join(',');
  }
  return JSON.stringify(value);
}

/** Plain `PLUGIN_*` variables, and those that come from secrets (variable → secret name). */
export function pluginEnviron(settings: Readonly<Record<string, SettingValue>>): {
  envs: Record<string, string>;
  secrets: Record<string, string>;
} {
  const envs: Record<string, string> = {};
  const secrets: Record<string, string> = {};
  for (const [name, setting] of Object.entries(settings)) {
    const variable = pluginVariable(name);
    if (setting.kind === 'secret') secrets[variable] = setting.secret;
    else envs[variable] = encodeSetting(setting.value);
  }
  return { envs, secrets };
}
