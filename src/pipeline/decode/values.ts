import type { Diagnostics } from '../diagnostics.js';
import type { EnvValue, JsonValue, SettingValue } from '../types.js';
import type { TreeMap, TreeNode } from '../yaml/tree.js';
import { child, describeNode, isEmpty, readMap } from './read.js';

const SECRET_HINT = 'the name of a secret, e.g. from_secret: docker_password';

/**
 * `{from_secret: name}` → the secret's name. A map without `from_secret` is not a secret reference
 * (undefined); one whose value is not a non-empty name is an error (null).
 */
function secretName(map: TreeMap, field: string, diagnostics: Diagnostics): string | null | undefined {
  const entry = map.entries.find((candidate) => candidate.key === 'from_secret');
  if (entry === undefined) return undefined;
  for (const other of map.entries) {
    if (other.key !== 'from_secret') {
      diagnostics.warning(
        other.keyPosition,
        field,
        `unknown field "${other.key}" next to from_secret is ignored; expected only from_secret: <name>`,
      );
    }
  }
  const value = entry.value;
  if (
    value.kind === 'scalar' &&
    value.value !== null &&
    typeof value.value !== 'boolean' &&
    value.text !== ''
  ) {
    return value.text;
  }
  diagnostics.error(
    value.kind === 'scalar' && value.value === null ? entry.keyPosition : value.position,
    child(field, 'from_secret'),
    `expected ${SECRET_HINT}, found ${describeNode(value)}`,
  );
  return null;
}

/** An environment value: a scalar (taken as written) or `{from_secret: name}`. */
export function readEnvValue(node: TreeNode, field: string, diagnostics: Diagnostics): EnvValue | undefined {
  if (node.kind === 'scalar') return { kind: 'value', value: node.text };
  if (node.kind === 'map') {
    const secret = secretName(node, field, diagnostics);
    if (typeof secret === 'string') return { kind: 'secret', secret };
    if (secret === null) return undefined;
  }
  diagnostics.error(
    node.position,
    field,
    `expected a string or {from_secret: <name>}, found ${describeNode(node)}${node.kind === 'seq' ? '; environment values are strings (join lists yourself)' : ''}`,
  );
  return undefined;
}

/** An `environment` section: a map of variable names to values or secrets. */
export function readEnvironment(
  node: TreeNode | undefined,
  field: string,
  diagnostics: Diagnostics,
): Record<string, EnvValue> {
  const result: Record<string, EnvValue> = {};
  if (node === undefined) return result;
  const map = readMap(node, field, 'a map of variable names to values, e.g. GOOS: linux', diagnostics);
  for (const entry of map?.entries ?? []) {
    const entryField = child(field, entry.key);
    if (entry.key === '' || entry.key.includes('=') || entry.key.includes('\0')) {
      diagnostics.error(
        entry.keyPosition,
        entryField,
        'is not a usable variable name; expected a name without "=", e.g. GOOS',
      );
      continue;
    }
    const value = isEmpty(entry.value)
      ? ({ kind: 'value', value: '' } as const)
      : readEnvValue(entry.value, entryField, diagnostics);
    if (value !== undefined) result[entry.key] = value;
  }
  return result;
}

/** A plugin `settings` section: any YAML values, or `{from_secret: name}`. Empty values are dropped, as in Drone. */
export function readSettings(
  node: TreeNode | undefined,
  field: string,
  diagnostics: Diagnostics,
): Record<string, SettingValue> {
  const result: Record<string, SettingValue> = {};
  if (node === undefined) return result;
  const map = readMap(node, field, 'a map of plugin settings, e.g. repo: octocat/hello', diagnostics);
  for (const entry of map?.entries ?? []) {
    if (isEmpty(entry.value)) continue;
    const entryField = child(field, entry.key);
    if (entry.value.kind === 'map') {
      const secret = secretName(entry.value, entryField, diagnostics);
      if (secret === null) continue;
      if (secret !== undefined) {
        result[entry.key] = { kind: 'secret', secret };
        continue;
      }
    }
    result[entry.key] = { kind: 'value', value: toJson(entry.value) };
  }
  return result;
}

/** The YAML value as plain data (maps keep their order). */
export function toJson(node: TreeNode): JsonValue {
  switch (node.kind) {
    case 'scalar':
      return node.value;
    case 'seq':
      return node.items.map(toJson);
    case 'map': {
      const result: Record<string, JsonValue> = {};
      for (const entry of node.entries) result[entry.key] = toJson(entry.value);
      return result;
    }
  }
}
