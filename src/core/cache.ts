/**
 * Caches (svc addition, docs/caches.md): what a step's `cache:` saved, kept per repository and per
 * scope. The scope is the ref whose builds wrote the entry and own it — `refs/heads/main`,
 * `refs/pull/7/head`, `refs/tags/v1` — so a build writes only under its own ref, and reads its own
 * ref's entries first, then the repository's default branch's.
 */
export interface CacheEntry {
  readonly id: number;
  repoId: number;
  /** The ref that owns the entry (the build's `ref`). */
  scope: string;
  /** The resolved key, unique within (repoId, scope). */
  key: string;
  /** Bytes of the stored (compressed) archive. */
  size: number;
  /** Where the archive is in the blob store (BlobStore key); a new one for every save. */
  blob: string;
  /** Epoch milliseconds of the save. */
  created: number;
  /** Epoch milliseconds of the last restore (the save's time until one): what eviction orders by. */
  used: number;
}

export type NewCacheEntry = Omit<CacheEntry, 'id'>;

/**
 * Persistence of the cache index (the archives themselves are in a BlobStore).
 * - `put` adds the entry, or replaces the one with the same (repoId, scope, key), atomically (the
 *   replacement has a new id); it answers the entry replaced, whose blob the caller deletes — when
 *   several put the same key at once, each replaced entry is answered to exactly one of them.
 * - `findPrefix` answers the newest entry (by `created`) of the scope whose key starts with
 *   `prefix` (`restore_keys`); the prefix is matched literally (no wildcards, `%` and `_` included).
 * - `list` answers a repository's entries, newest first; `unusedSince` those of any repository
 *   last used before `before`, least recently used first, at most `limit`.
 */
export interface CacheStore {
  find(repoId: number, scope: string, key: string): Promise<CacheEntry | undefined>;
  findPrefix(repoId: number, scope: string, prefix: string): Promise<CacheEntry | undefined>;
  list(repoId: number): Promise<CacheEntry[]>;
  unusedSince(before: number, limit: number): Promise<CacheEntry[]>;
  put(entry: NewCacheEntry): Promise<{ entry: CacheEntry; replaced: CacheEntry | undefined }>;
  touch(id: number, used: number): Promise<void>;
  delete(ids: readonly number[]): Promise<void>;
  /** Sum of `size` over the repository's entries (0 when none). */
  totalSize(repoId: number): Promise<number>;
}
