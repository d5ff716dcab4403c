import type { JsonValue } from '../../types.js';
import { sprint } from '../../templates/gotemplate/values.js';
import type { LanguageFacts } from '../types.js';

/**
 * Drone's Jsonnet external variables: `build.<name>` and `repo.<name>` for every fact, as strings
 * (booleans as "true"/"false", read with `std.extVar`), and `build.param.<KEY>` for each build
 * parameter; a template's inputs as `input.<key>` (nested values as Go prints them, e.g.
 * `[a b]`). Drone has no `build.cron` or `build.debug`; svc's extra variables only add.
 */
export function extVarsOf(
  facts: LanguageFacts,
  input: Readonly<Record<string, JsonValue>> = {},
): Record<string, string> {
  const vars: Record<string, string> = {};
  // A template's inputs as Drone passes them: input.<key>, the value as Go's fmt.Sprint writes it.
  for (const [name, value] of Object.entries(input)) vars[`input.${name}`] = sprint(value);
  for (const [name, value] of Object.entries(facts.build)) vars[`build.${name}`] = String(value);
  for (const [name, value] of Object.entries(facts.repo)) vars[`repo.${name}`] = String(value);
  for (const [name, value] of Object.entries(facts.params)) vars[`build.param.${name}`] = value;
  return vars;
}
