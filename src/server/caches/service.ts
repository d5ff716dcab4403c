import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { BlobStore } from '../../core/blob.js';
import type { Build } from '../../core/build.js';
import type { CacheEntry, CacheStore } from '../../core/cache.js';
import { ForbiddenError, InvalidInputError } from '../../core/errors.js';
import { comesFromFork } from '../../core/fork.js';
import { byteLimited } from '../../platform/byte-limit.js';
import type { Repo } from '../../core/repo.js';
import { idSegment, removeOrphanBlobs } from '../orphan-blobs.js';

/** The longest ref a cache's scope can be (the index's column). */
const MAX_SCOPE = 255;

/**
 * The scope a build writes and reads first: its ref — except builds of a commit someone asked for
 * (custom builds, promotions, rollbacks, debug builds), which may run any commit under a branch's
 * ref: they get their own (`custom:<ref>`), so that they never change what the branch's pushes
 * restore (a writer who may not push to a protected branch cannot poison its caches this way).
 */
export function ownScope(build: Pick<Build, 'ref' | 'event' | 'debug'>): string {
  const asked =
    build.event === 'custom' || build.event === 'promote' || build.event === 'rollback' || build.debug;
  return asked ? `custom:${build.ref}` : build.ref;
}

/** SVC_CACHE_MAX_SIZE and SVC_CACHE_MAX_AGE. */
export interface CacheLimits {
  /** Bytes a repository's caches may take together; the least recently used go beyond it. */
  maxSize: number;
  /** Milliseconds a cache may go unused before it is removed. */
  maxAge: number;
}

export interface CacheServiceDeps {
  store: CacheStore;
  blobs: BlobStore;
  limits: CacheLimits;
  now?: () => number;
  /** Told of what could not be cleaned up (a blob that would not delete); never fails a build. */
  warn?: (message: string, error: unknown) => void;
}

/** A cache found for a build, with its archive. */
export interface FoundCache {
  entry: CacheEntry;
  exact: boolean;
  body: Readable;
}

/**
 * The server's caches (docs/caches.md): who reads and writes which, kept where, for how long.
 * - A build's scope is its ref. It reads its own scope's entries first, then the repository's
 *   default branch's: the exact key, then each restore key (newest entry whose key starts with it).
 * - It writes only its own scope, and never when it comes from a fork (a fork's pull request may
 *   read the default branch's caches; writing would let it poison them).
 * - An archive goes to the blob store under a new name, then the index points at it (replacing
 *   and deleting the scope's older one): a save interrupted at any moment leaves the old entry or
 *   none, never a partial one. Beyond SVC_CACHE_MAX_SIZE a repository's least recently used
 *   entries go; entries unused for SVC_CACHE_MAX_AGE go at `expire`.
 */
export class CacheService {
  readonly #now: () => number;

  constructor(private readonly deps: CacheServiceDeps) {
    this.#now = deps.now ?? Date.now;
  }

  async restore(
    repo: Repo,
    build: Pick<Build, 'ref' | 'event' | 'debug'>,
    key: string,
    restoreKeys: readonly string[],
  ): Promise<FoundCache | undefined> {
    const scopes = [...new Set([ownScope(build), build.ref, `refs/heads/${repo.defaultBranch}`])].filter(
      (scope) => scope.length <= MAX_SCOPE,
    );
    const { store } = this.deps;
    const candidates: [string, boolean][] = [
      [key, true],
      ...restoreKeys.map((p): [string, boolean] => [p, false]),
    ];
    for (const [text, exact] of candidates) {
      for (const scope of scopes) {
        const entry = exact
          ? await store.find(repo.id, scope, text)
          : await store.findPrefix(repo.id, scope, text);
        if (entry === undefined) continue;
        // Touched before the archive is opened: nothing is left open if the index fails.
        await store.touch(entry.id, this.#now());
        const body = await this.deps.blobs.get(entry.blob);
        // An index entry whose archive is gone (removed by hand, a bucket's expiry): dropped, looked on.
        if (body === undefined) {
          await store.delete([entry.id]);
          continue;
        }
        return { entry, exact: exact || entry.key === key, body };
      }
    }
    return undefined;
  }

  /** Why the build may not save caches (a fork's pull request, a ref too long); undefined when it may. */
  writeRefusal(
    repo: Pick<Repo, 'slug'>,
    build: Pick<Build, 'ref' | 'event' | 'sourceRepo' | 'debug'>,
  ): string | undefined {
    if (comesFromFork(build, repo.slug))
      return 'a pull request from a fork reads caches but never writes one';
    if (ownScope(build).length > MAX_SCOPE)
      return `the build's ref is longer than ${MAX_SCOPE} characters, which caches cannot be kept under`;
    return undefined;
  }

  /** Stores a build's archive under `key` in its own scope; ForbiddenError when writeRefusal says no. */
  async save(
    repo: Repo,
    build: Pick<Build, 'ref' | 'event' | 'sourceRepo' | 'debug'>,
    key: string,
    body: Readable,
  ): Promise<CacheEntry> {
    const refusal = this.writeRefusal(repo, build);
    if (refusal !== undefined) {
      // Read to its end, so that the runner hears the answer rather than a broken connection.
      body.resume();
      throw new ForbiddenError(refusal);
    }
    if (key === '' || key.length > 512) throw new InvalidInputError('key: expected 1 to 512 characters');
    const blob = `caches/${repo.id}/${randomBytes(16).toString('hex')}`;
    const { maxSize } = this.deps.limits;
    // A runner gone midway fails the blob's write too: nothing is indexed.
    const counted = byteLimited(
      body,
      maxSize,
      `the cache is larger than SVC_CACHE_MAX_SIZE (${maxSize} bytes)`,
    );
    const { size } = await this.deps.blobs.put(blob, counted);
    const now = this.#now();
    const { entry, replaced } = await this.deps.store.put({
      repoId: repo.id,
      scope: ownScope(build),
      key,
      size,
      blob,
      created: now,
      used: now,
    });
    if (replaced !== undefined) await this.#deleteBlob(replaced.blob);
    await this.#evict(repo.id, entry.id);
    return entry;
  }

  list(repo: Pick<Repo, 'id'>): Promise<CacheEntry[]> {
    return this.deps.store.list(repo.id);
  }

  /** Removes the repository's entries whose key is `key` (every scope), or all of them; answers how many. */
  async remove(repo: Pick<Repo, 'id'>, key?: string): Promise<number> {
    const entries = (await this.deps.store.list(repo.id)).filter((e) => key === undefined || e.key === key);
    await this.#drop(entries);
    return entries.length;
  }

  /** Removes the entries unused for SVC_CACHE_MAX_AGE (a batch at a time); answers how many. */
  async expire(batch = 500): Promise<number> {
    const old = await this.deps.store.unusedSince(this.#now() - this.deps.limits.maxAge, batch);
    await this.#drop(old);
    return old.length;
  }

  /**
   * Removes archives no entry names (a server died between storing and indexing one; a deleted
   * repository's entries went with it), once a day old; answers how many. `at`: now.
   */
  removeOrphans(at = this.#now()): Promise<number> {
    return removeOrphanBlobs({
      blobs: this.deps.blobs,
      prefix: 'caches/',
      groupOf: (key) => idSegment(key, 1),
      knownIn: async (repoId) => (await this.deps.store.list(repoId)).map((entry) => entry.blob),
      now: () => at,
    });
  }

  /** Least recently used entries go until the repository fits its limit; `keep` (just saved) stays. */
  async #evict(repoId: number, keep: number): Promise<void> {
    let total = await this.deps.store.totalSize(repoId);
    if (total <= this.deps.limits.maxSize) return;
    const byUse = (await this.deps.store.list(repoId))
      .filter((e) => e.id !== keep)
      .sort((a, b) => a.used - b.used);
    const gone: CacheEntry[] = [];
    for (const entry of byUse) {
      if (total <= this.deps.limits.maxSize) break;
      gone.push(entry);
      total -= entry.size;
    }
    await this.#drop(gone);
  }

  async #drop(entries: readonly CacheEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await this.deps.store.delete(entries.map((e) => e.id));
    for (const entry of entries) await this.#deleteBlob(entry.blob);
  }

  async #deleteBlob(blob: string): Promise<void> {
    try {
      await this.deps.blobs.delete(blob);
    } catch (error) {
      this.deps.warn?.(`cache archive ${blob} could not be deleted`, error);
    }
  }
}
