import type { BlobStore } from '../core/blob.js';

/**
 * How old a blob must be before it counts as orphaned: far longer than any upload takes between
 * its blob being stored and its index row written (on S3 a multipart object may carry the time
 * its upload began), so an upload under way is never taken for one.
 */
export const ORPHAN_AGE_MS = 24 * 60 * 60_000;

/** The most blobs one sweep removes: the janitor calls again until a sweep removes none. */
const MAX_REMOVED = 5_000;

/** Index groups whose blobs are remembered at once (a listing comes group by group). */
const MAX_GROUPS = 256;

export interface OrphanSweep {
  blobs: BlobStore;
  /** The blobs' key prefix, e.g. `caches/`. */
  prefix: string;
  /**
   * The index group a blob key belongs to (a repository's id for caches, a build's for artifacts),
   * or undefined for a key svc does not write there: such a blob is left alone.
   */
  groupOf(key: string): number | undefined;
  /** The blob keys the index names in that group. */
  knownIn(group: number): Promise<readonly string[]>;
  now?: () => number;
}

/**
 * Removes the blobs under `prefix` that no index row names, once they are ORPHAN_AGE_MS old: what
 * a server that died between storing a blob and indexing it left, and the archives of caches whose
 * repository was deleted (the rows go with it; migration 016). Answers how many went.
 */
export async function removeOrphanBlobs(sweep: OrphanSweep): Promise<number> {
  const before = (sweep.now ?? Date.now)() - ORPHAN_AGE_MS;
  const known = new Map<number, Set<string>>();
  let removed = 0;
  for await (const blob of sweep.blobs.list(sweep.prefix)) {
    if (blob.modified >= before) continue;
    const group = sweep.groupOf(blob.key);
    if (group === undefined) continue;
    let keys = known.get(group);
    if (keys === undefined) {
      if (known.size >= MAX_GROUPS) known.clear();
      keys = new Set(await sweep.knownIn(group));
      known.set(group, keys);
    }
    if (keys.has(blob.key)) continue;
    await sweep.blobs.delete(blob.key);
    removed += 1;
    if (removed >= MAX_REMOVED) break;
  }
  return removed;
}

/** The number in the blob key's segment `index` (`caches/12/…` → 12 at 1), if it is one. */
export function idSegment(key: string, index: number): number | undefined {
  const segment = key.split('/')[index];
  if (segment === undefined || !/^[1-9][0-9]{0,15}$/.test(segment)) return undefined;
  const id = Number(segment);
  return Number.isSafeInteger(id) ? id : undefined;
}
