/*
 * The three PATCH bodies the API server takes for a pod (research notes §3.3), chosen by Content-Type:
 * - application/strategic-merge-patch+json: maps merge, null deletes a key, lists with a patch merge key
 *   in the Pod schema (containers by `name`, volumeMounts by `mountPath`, …) merge element by element,
 *   other lists are replaced; the directives `$patch: replace|delete`, `$setElementOrder/<list>`,
 *   `$retainKeys` and `$deleteFromPrimitiveList/<list>` are understood;
 * - application/merge-patch+json: RFC 7386 (lists replaced wholesale);
 * - application/json-patch+json: RFC 6902, every op including `test`; a missing parent fails.
 */
import { badRequest, patchFailed } from './errors.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

export const PATCH_TYPES = [
  'application/strategic-merge-patch+json',
  'application/merge-patch+json',
  'application/json-patch+json',
] as const;
export type PatchType = (typeof PATCH_TYPES)[number];

/** Applies `patch` (already JSON-decoded) to `target`; returns a new document. */
export function applyPatch(type: PatchType, target: unknown, patch: unknown): unknown {
  switch (type) {
    case 'application/strategic-merge-patch+json':
      if (!isObject(patch)) throw badRequest('strategic merge patch body must be a JSON object');
      return strategicMerge(target as Json, patch, '');
    case 'application/merge-patch+json':
      return mergePatch(target as Json, patch as Json);
    case 'application/json-patch+json':
      return jsonPatch(target as Json, patch);
  }
}

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

// ---- RFC 7386 -------------------------------------------------------------------------------------

export function mergePatch(target: Json, patch: Json): Json {
  if (!isObject(patch)) return patch;
  const result: JsonObject = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key] ?? null, value);
  }
  return result;
}

// ---- strategic merge patch --------------------------------------------------------------------------

/** Lists of the Pod schema with `patchStrategy: merge`, by schema path (list indexes left out). */
const MERGE_KEYS: Record<string, string> = {};
for (const list of ['spec.containers', 'spec.initContainers', 'spec.ephemeralContainers']) {
  MERGE_KEYS[list] = 'name';
  MERGE_KEYS[`${list}.env`] = 'name';
  MERGE_KEYS[`${list}.volumeMounts`] = 'mountPath';
  MERGE_KEYS[`${list}.volumeDevices`] = 'devicePath';
  MERGE_KEYS[`${list}.ports`] = 'containerPort';
  MERGE_KEYS[`${list}.resizePolicy`] = 'resourceName';
}
Object.assign(MERGE_KEYS, {
  'spec.volumes': 'name',
  'spec.imagePullSecrets': 'name',
  'spec.hostAliases': 'ip',
  'spec.schedulingGates': 'name',
  'spec.resourceClaims': 'name',
  'status.conditions': 'type',
  'metadata.ownerReferences': 'uid',
});
/** Lists of scalars with `patchStrategy: merge` (a set union). */
const MERGED_SCALAR_LISTS = new Set(['metadata.finalizers']);

function strategicMerge(target: Json, patch: JsonObject, path: string): Json {
  if (patch.$patch === 'replace') return withoutDirectives(patch);
  const result: JsonObject = isObject(target) ? { ...target } : {};
  const retain = patch.$retainKeys;
  for (const [key, value] of Object.entries(patch)) {
    if (key === '$patch' || key === '$retainKeys' || key.startsWith('$setElementOrder/')) continue;
    if (key.startsWith('$deleteFromPrimitiveList/')) {
      const list = key.slice('$deleteFromPrimitiveList/'.length);
      const current = result[list];
      if (Array.isArray(current) && Array.isArray(value)) {
        result[list] = current.filter((item) => !value.some((v) => deepEqual(v, item)));
      }
      continue;
    }
    const childPath = path === '' ? key : `${path}.${key}`;
    if (value === null) {
      delete result[key];
    } else if (isObject(value) && value.$patch === 'delete') {
      delete result[key];
    } else if (Array.isArray(value) && MERGE_KEYS[childPath] !== undefined) {
      result[key] = mergeList(result[key], value, MERGE_KEYS[childPath], childPath);
    } else if (Array.isArray(value) && MERGED_SCALAR_LISTS.has(childPath)) {
      const current = Array.isArray(result[key]) ? result[key] : [];
      result[key] = [...current, ...value.filter((v) => !current.some((c) => deepEqual(c, v)))];
    } else if (isObject(value)) {
      result[key] = strategicMerge(result[key] ?? null, value, childPath);
    } else {
      result[key] = value;
    }
    const order = patch[`$setElementOrder/${key}`];
    if (Array.isArray(order) && Array.isArray(result[key])) {
      result[key] = reorder(result[key], order, MERGE_KEYS[childPath]);
    }
  }
  if (Array.isArray(retain)) {
    for (const key of Object.keys(result)) if (!retain.includes(key)) delete result[key];
  }
  return result;
}

function mergeList(target: Json | undefined, patch: Json[], mergeKey: string, path: string): Json[] {
  if (patch.some((item) => isObject(item) && item.$patch === 'replace')) {
    return patch.filter((item) => !(isObject(item) && item.$patch === 'replace')).map(stripIfObject);
  }
  const result: Json[] = Array.isArray(target) ? [...target] : [];
  for (const item of patch) {
    if (!isObject(item) || item[mergeKey] === undefined) {
      throw badRequest(`map: ${JSON.stringify(item)} does not contain declared merge key: ${mergeKey}`);
    }
    const index = result.findIndex(
      (e) => isObject(e) && deepEqual(e[mergeKey] ?? null, item[mergeKey] ?? null),
    );
    if (item.$patch === 'delete') {
      if (index >= 0) result.splice(index, 1);
    } else if (index >= 0) {
      result[index] = strategicMerge(result[index] ?? null, item, path);
    } else {
      result.push(strategicMerge(null, item, path));
    }
  }
  return result;
}

function reorder(list: Json[], order: Json[], mergeKey: string | undefined): Json[] {
  const keyOf = (item: Json): Json =>
    mergeKey !== undefined && isObject(item) ? (item[mergeKey] ?? null) : item;
  const rank = (item: Json): number => {
    const wanted = mergeKey !== undefined && isObject(item) ? keyOf(item) : item;
    const position = order.findIndex((o) => deepEqual(keyOf(o), wanted));
    return position < 0 ? order.length : position;
  };
  return list
    .map((item, index) => ({ item, index }))
    .sort((a, b) => rank(a.item) - rank(b.item) || a.index - b.index)
    .map(({ item }) => item);
}

function withoutDirectives(value: JsonObject): JsonObject {
  const result: JsonObject = {};
  for (const [key, child] of Object.entries(value)) {
    if (!key.startsWith('$')) result[key] = child;
  }
  return result;
}

const stripIfObject = (item: Json): Json => (isObject(item) ? withoutDirectives(item) : item);

// ---- RFC 6902 -------------------------------------------------------------------------------------

interface Operation {
  op: string;
  path: string;
  from?: string;
  value?: Json;
}

function jsonPatch(target: Json, patch: unknown): Json {
  if (!Array.isArray(patch)) {
    throw badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  }
  let doc: Json = structuredClone(target);
  for (const raw of patch as unknown[]) {
    if (!isObject(raw) || typeof raw.op !== 'string' || typeof raw.path !== 'string') {
      throw patchFailed(`Unexpected kind: ${isObject(raw) ? JSON.stringify(raw.op ?? null) : 'unknown'}`);
    }
    doc = applyOperation(doc, raw as unknown as Operation);
  }
  return doc;
}

function applyOperation(doc: Json, op: Operation): Json {
  switch (op.op) {
    case 'add':
      return put(doc, op.path, op.value ?? null, 'add');
    case 'replace':
      get(doc, op.path, 'replace');
      return put(doc, op.path, op.value ?? null, 'replace');
    case 'remove':
      return removeAt(doc, op.path);
    case 'move': {
      const value = get(doc, op.from ?? '', 'move');
      return put(removeAt(doc, op.from ?? ''), op.path, value, 'move');
    }
    case 'copy':
      return put(doc, op.path, structuredClone(get(doc, op.from ?? '', 'copy')), 'copy');
    case 'test':
      if (!deepEqual(get(doc, op.path, 'test'), op.value ?? null)) {
        throw patchFailed(`testing value ${op.path} failed: test failed`);
      }
      return doc;
    default:
      throw patchFailed(`Unexpected kind: ${op.op}`);
  }
}

function tokens(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw patchFailed(`invalid JSON pointer: ${JSON.stringify(pointer)}`);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
}

function arrayIndex(list: Json[], token: string, allowEnd: boolean, op: string, pointer: string): number {
  if (allowEnd && token === '-') return list.length;
  if (!/^(0|[1-9]\d*)$/.test(token) || Number(token) > list.length - (allowEnd ? 0 : 1)) {
    throw patchFailed(`${op} operation does not apply: doc is missing path: "${pointer}": missing value`);
  }
  return Number(token);
}

function get(doc: Json, pointer: string, op: string): Json {
  let node: Json = doc;
  for (const token of tokens(pointer)) {
    if (Array.isArray(node)) node = node[arrayIndex(node, token, false, op, pointer)] ?? null;
    else if (isObject(node) && Object.hasOwn(node, token)) node = node[token] ?? null;
    else
      throw patchFailed(`${op} operation does not apply: doc is missing path: "${pointer}": missing value`);
  }
  return node;
}

/** The parent container of `pointer` and the last token; the parent must exist (no implicit creation). */
function parentOf(doc: Json, pointer: string, op: string): { parent: Json; last: string } {
  const all = tokens(pointer);
  const last = all.pop();
  if (last === undefined) return { parent: null, last: '' };
  const parentPointer =
    all.length === 0 ? '' : `/${all.map((t) => t.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;
  const parent = get(doc, parentPointer, op);
  if (!Array.isArray(parent) && !isObject(parent)) {
    throw patchFailed(`${op} operation does not apply: doc is missing path: "${pointer}": missing value`);
  }
  return { parent, last };
}

function put(doc: Json, pointer: string, value: Json, op: string): Json {
  if (pointer === '') return value;
  const { parent, last } = parentOf(doc, pointer, op);
  if (Array.isArray(parent)) {
    const index = arrayIndex(parent, last, op !== 'replace', op, pointer);
    if (op === 'replace') parent[index] = value;
    else parent.splice(index, 0, value);
  } else if (isObject(parent)) {
    parent[last] = value;
  }
  return doc;
}

function removeAt(doc: Json, pointer: string): Json {
  const { parent, last } = parentOf(doc, pointer, 'remove');
  if (Array.isArray(parent)) {
    parent.splice(arrayIndex(parent, last, false, 'remove', pointer), 1);
  } else if (isObject(parent)) {
    if (!Object.hasOwn(parent, last)) {
      throw patchFailed(`remove operation does not apply: doc is missing path: "${pointer}": missing value`);
    }
    delete parent[last];
  }
  return doc;
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, i) => deepEqual(item, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]))
    );
  }
  return false;
}
