import type { CacheEntry } from '../../../core/cache.js';

const seconds = (ms: number) => Math.floor(ms / 1000);

/** A cache entry as the API shows it: times in epoch seconds, the size in bytes, no blob name. */
export function cacheJson(entry: CacheEntry): Record<string, unknown> {
  return {
    key: entry.key,
    scope: entry.scope,
    size: entry.size,
    created: seconds(entry.created),
    used: seconds(entry.used),
  };
}
