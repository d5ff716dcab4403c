import type { LanguageFacts } from '../types.js';

/**
 * Drone's Jsonnet external variables: `build.<name>` and `repo.<name>` for every fact, as strings
 * (booleans as "true"/"false", read with `std.extVar`), and `build.param.<KEY>` for each build
 * parameter. Drone has no `build.cron` or `build.debug`; svc's extra variables only add.
 */
export function extVarsOf(facts: LanguageFacts): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const [name, value] of Object.entries(facts.build)) vars[`build.${name}`] = String(value);
  for (const [name, value] of Object.entries(facts.repo)) vars[`repo.${name}`] = String(value);
  for (const [name, value] of Object.entries(facts.params)) vars[`build.param.${name}`] = value;
  return vars;
}
