import type { Diagnostics, Position } from '../diagnostics.js';
import type { CachePolicy, StepCache } from '../types.js';
import type { TreeNode } from '../yaml/tree.js';
import { Fields, type FieldSet } from './fields.js';
import { readMap } from './read.js';

/** Longest key (and restore key) as written, build variables substituted, before checksums. */
export const MAX_CACHE_KEY = 512;

const CACHE_FIELDS: FieldSet = {
  what: 'a cache',
  known: ['key', 'restore_keys', 'paths', 'policy'],
  docs: 'see "Caches" in docs/pipelines.md',
};

const POLICIES: readonly CachePolicy[] = ['pull-push', 'pull', 'push'];
const POLICY_EXPECTED =
  'pull-push (restore before the step, save after it; the default), pull (restore only) or push (save only)';

const KEY_EXAMPLE = 'key: npm-{{ checksum "package-lock.json" }}';
const CHECKSUM = /^\s*checksum\s+"([^"]*)"\s*$/;

/**
 * A step's `cache:` (svc addition): a key (with `{{ checksum "FILE" }}` left for the runner), key
 * prefixes to fall back on, the paths to save and a policy. Undefined when absent or when anything
 * in it is wrong (every problem is reported), so that a build never runs half a cache.
 */
export function readCache(
  node: TreeNode | undefined,
  field: string,
  at: Position,
  diagnostics: Diagnostics,
): StepCache | undefined {
  if (node === undefined) return undefined;
  const map = readMap(
    node,
    field,
    `a map with key and paths, e.g. {${KEY_EXAMPLE}, paths: [node_modules]} (a key starting with {{ must be quoted)`,
    diagnostics,
  );
  if (map === undefined) return undefined;
  const cache = new CacheFields(new Fields(map, field, diagnostics).expect(CACHE_FIELDS));
  const key = cache.key();
  const restoreKeys = cache.list('restore_keys', 'key prefixes, e.g. restore_keys: [npm-]', (prefix) =>
    prefix.trim() === '' ? 'is empty; expected a key prefix, e.g. restore_keys: [npm-]' : keyProblem(prefix),
  );
  const paths = cache.paths();
  const policy = cache.policy();
  if (!cache.ok || key === undefined || policy === undefined) return undefined;
  return { key, restoreKeys, paths, policy, position: at };
}

/** The fields of one `cache:` map, read and checked; `ok` turns false at the first problem. */
class CacheFields {
  ok = true;
  readonly #fields: Fields;

  constructor(fields: Fields) {
    this.#fields = fields;
  }

  key(): string | undefined {
    const fields = this.#fields;
    const node = fields.node('key');
    const key = fields.string('key', `a cache key, e.g. ${KEY_EXAMPLE}`);
    if (node === undefined || key?.trim() === '') {
      this.#error('key', `is required: expected the name the cache is saved under, e.g. ${KEY_EXAMPLE}`);
      return undefined;
    }
    if (key === undefined) {
      this.ok = false;
      return undefined;
    }
    const problem = keyProblem(key);
    if (problem !== undefined) this.#error('key', problem);
    return key;
  }

  paths(): string[] {
    const node = this.#fields.node('paths');
    if (node === undefined || (node.kind === 'seq' && node.items.length === 0)) {
      this.#error(
        'paths',
        'is required: expected the directories or files to save, relative to the workspace or absolute, e.g. paths: [node_modules, /root/.npm]',
      );
    }
    const seen = new Map<string, string>();
    return this.list('paths', 'paths to save, e.g. paths: [node_modules]', (path) => {
      const problem = pathProblem(path);
      if (problem !== undefined) return problem;
      const earlier = seen.get(normalizePath(path));
      if (earlier !== undefined)
        return `"${path}" is listed already (as "${earlier}"); expected each path once`;
      seen.set(normalizePath(path), path);
      return undefined;
    });
  }

  policy(): CachePolicy | undefined {
    if (this.#fields.node('policy') === undefined) return 'pull-push';
    const text = this.#fields.string('policy', POLICY_EXPECTED);
    if (text === undefined) {
      this.ok = false;
      return undefined;
    }
    const policy = POLICIES.find((candidate) => candidate === text);
    if (policy === undefined) this.#error('policy', `unknown policy "${text}"; expected ${POLICY_EXPECTED}`);
    return policy;
  }

  /**
   * A list of strings (or one string), each checked with `problemOf` at its own line. An item that
   * is not a string is reported (by `Fields.strings`) and spoils the cache.
   */
  list(key: string, expected: string, problemOf: (value: string) => string | undefined): string[] {
    const fields = this.#fields;
    const node = fields.node(key);
    const values = fields.strings(key, expected);
    const items =
      node?.kind === 'seq'
        ? node.items.flatMap((item, index) =>
            item.kind === 'scalar' && item.value !== null ? [{ value: item.text, index }] : [],
          )
        : values.map((value, index) => ({ value, index }));
    if (items.length !== (node?.kind === 'seq' ? node.items.length : node === undefined ? 0 : 1)) {
      this.ok = false;
    }
    for (const { value, index } of items) {
      const problem = problemOf(value);
      if (problem !== undefined) this.#error(`${key}[${index}]`, problem);
    }
    return items.map((item) => item.value);
  }

  /** An error at the value of `key` (a field or a list item), or where it should be. */
  #error(key: string, message: string): void {
    const fields = this.#fields;
    this.ok = false;
    const at = fields.node(key)?.position ?? fields.locations[key] ?? fields.at(key);
    fields.diagnostics.error(at, fields.field(key), message);
  }
}

/** What is wrong with a key or restore key (its length, its `{{ … }}` templates), if anything. */
function keyProblem(key: string): string | undefined {
  if (key.length > MAX_CACHE_KEY) {
    return `is ${key.length} characters long; expected at most ${MAX_CACHE_KEY}, e.g. a prefix and a checksum: ${KEY_EXAMPLE}`;
  }
  let from = 0;
  for (;;) {
    const open = key.indexOf('{{', from);
    if (open === -1) return undefined;
    const close = key.indexOf('}}', open + 2);
    if (close === -1) {
      return `has a {{ without a closing }}; expected {{ checksum "FILE" }}, e.g. ${KEY_EXAMPLE}`;
    }
    const template = key.slice(open, close + 2);
    const file = CHECKSUM.exec(key.slice(open + 2, close))?.[1];
    if (file === undefined) {
      return `"${template}" is not a checksum; expected {{ checksum "FILE" }} with a file of the workspace in double quotes, e.g. ${KEY_EXAMPLE}`;
    }
    const problem = checksumFileProblem(file);
    if (problem !== undefined) return `"${template}": ${problem}`;
    from = close + 2;
  }
}

function checksumFileProblem(file: string): string | undefined {
  if (file.trim() === '')
    return 'names no file; expected a file of the workspace, e.g. {{ checksum "package-lock.json" }}';
  if (file.startsWith('/') || file.startsWith('~') || /^[A-Za-z]:/.test(file)) {
    return `"${file}" is not relative; expected a file relative to the workspace, e.g. {{ checksum "web/package-lock.json" }}`;
  }
  if (segments(file).includes('..')) {
    return `"${file}" has a .. segment; expected a file inside the workspace, e.g. {{ checksum "web/package-lock.json" }}`;
  }
  return undefined;
}

function pathProblem(path: string): string | undefined {
  if (path.trim() === '') {
    return 'is empty; expected a directory or file to save, e.g. node_modules or /root/.npm';
  }
  if (path.startsWith('~')) {
    return `"${path}": ~ is not expanded; expected a path relative to the workspace or absolute, e.g. /root/.npm`;
  }
  if (segments(path).includes('..')) {
    return `"${path}" has a .. segment; expected a path inside the workspace (e.g. node_modules) or an absolute one (e.g. /root/.npm)`;
  }
  return undefined;
}

function segments(path: string): string[] {
  return path.split(/[/\\]/);
}

/** The path without `.` segments, repeated or trailing slashes: `./a//b/` and `a/b` are one path. */
function normalizePath(path: string): string {
  const parts = segments(path).filter((part) => part !== '' && part !== '.');
  return `${path.startsWith('/') ? '/' : ''}${parts.join('/')}`;
}
