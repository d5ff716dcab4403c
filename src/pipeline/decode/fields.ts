import { suggestName } from '../suggest.js';
import type { Diagnostics, Locations, Position } from '../diagnostics.js';
import type { TreeMap, TreeNode } from '../yaml/tree.js';
import {
  child,
  isEmpty,
  readBool,
  readInt,
  readMap,
  readString,
  readStringMap,
  readStrings,
} from './read.js';

/** How one kind of map (a step, a pipeline, …) is checked for fields it does not know. */
export interface FieldSet {
  /** What the map is, for messages: "a step", "the clone section". */
  readonly what: string;
  readonly known: readonly string[];
  /** Fields that belong to other pipeline types: the value says which, e.g. "kubernetes pipelines". */
  readonly elsewhere?: ReadonlyMap<string, string> | undefined;
  /** Where the reader finds the list of fields. */
  readonly docs?: string | undefined;
}

/**
 * The fields of one YAML map, read by name. Unknown fields are warnings (Drone ignores them too);
 * wrongly typed values are errors that name the field and what it expects.
 */
export class Fields {
  readonly path: string;
  readonly position: Position;
  readonly diagnostics: Diagnostics;
  readonly #values = new Map<string, TreeNode>();
  readonly #locations: Record<string, Position> = {};

  readonly #map: TreeMap;

  constructor(map: TreeMap, path: string, diagnostics: Diagnostics) {
    this.#map = map;
    this.path = path;
    this.position = map.position;
    this.diagnostics = diagnostics;
    for (const entry of map.entries) {
      this.#values.set(entry.key, entry.value);
      this.#locations[entry.key] = entry.keyPosition;
    }
  }

  /** Warns about the fields `set` does not know; called once the kind of map is known. */
  expect(set: FieldSet): this {
    for (const entry of this.#map.entries) {
      if (!set.known.includes(entry.key)) {
        warnUnknown(entry.key, entry.keyPosition, this.path, set, this.diagnostics);
      }
    }
    return this;
  }

  /** Key positions of the fields present, plus list items recorded with `note`. */
  get locations(): Locations {
    return this.#locations;
  }

  /** Records the position of a list item (`depends_on[2]`) for later checks. */
  note(key: string, position: Position): void {
    this.#locations[key] = position;
  }

  has(key: string): boolean {
    return !isEmpty(this.#values.get(key));
  }

  /** The value of a field; undefined when absent or empty (`key:`). */
  node(key: string): TreeNode | undefined {
    const value = this.#values.get(key);
    return isEmpty(value) ? undefined : value;
  }

  field(key: string): string {
    return child(this.path, key);
  }

  /** Where to report a problem with a field: its key, or the map when it is absent. */
  at(key: string): Position {
    return this.#locations[key] ?? this.position;
  }

  string(key: string, expected = 'a string'): string | undefined {
    const node = this.node(key);
    return node === undefined ? undefined : readString(node, this.field(key), expected, this.diagnostics);
  }

  bool(key: string): boolean | undefined {
    const node = this.node(key);
    return node === undefined ? undefined : readBool(node, this.field(key), this.diagnostics);
  }

  int(key: string, expected = 'a whole number, 0 or more', min = 0): number | undefined {
    const node = this.node(key);
    return node === undefined
      ? undefined
      : readInt(node, this.field(key), { min, expected }, this.diagnostics);
  }

  strings(key: string, expected: string): string[] {
    const node = this.node(key);
    if (node === undefined) return [];
    const values = readStrings(node, this.field(key), expected, this.diagnostics);
    if (node.kind === 'seq')
      node.items.forEach((item, index) => this.note(`${key}[${index}]`, item.position));
    else this.note(`${key}[0]`, node.position);
    return values;
  }

  stringMap(key: string, expected: string): Record<string, string> {
    const node = this.node(key);
    return node === undefined ? {} : readStringMap(node, this.field(key), expected, this.diagnostics);
  }

  /** A nested section read with its own field set. */
  section(key: string, set: FieldSet): Fields | undefined {
    const node = this.node(key);
    if (node === undefined) return undefined;
    const map = readMap(node, this.field(key), `${set.what} (a map)`, this.diagnostics);
    return map === undefined ? undefined : new Fields(map, this.field(key), this.diagnostics).expect(set);
  }
}

/** Reads a map that must be `set`-shaped; reports it when it is something else. */
export function fieldsOf(
  node: TreeNode,
  path: string,
  set: FieldSet,
  diagnostics: Diagnostics,
): Fields | undefined {
  const map = readMap(node, path, `${set.what} (a map of fields)`, diagnostics);
  return map === undefined ? undefined : new Fields(map, path, diagnostics).expect(set);
}

function warnUnknown(key: string, at: Position, path: string, set: FieldSet, diagnostics: Diagnostics): void {
  const owner = set.elsewhere?.get(key);
  if (owner !== undefined) {
    diagnostics.warning(at, child(path, key), `applies to ${owner} only and is ignored in ${set.what}`);
    return;
  }
  const suggestion = suggestName(key, set.known);
  const hint =
    suggestion !== undefined
      ? `did you mean "${suggestion}"?`
      : `${set.what} accepts: ${set.known.join(', ')}${set.docs === undefined ? '' : ` (${set.docs})`}`;
  diagnostics.warning(at, path, `unknown field "${key}" is ignored; ${hint}`);
}
