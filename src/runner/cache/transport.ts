import type { Readable } from 'node:stream';

/** What the server found for a step's cache: the archive (zstd-compressed tar) and which key it was. */
export interface CacheHit {
  key: string;
  /** The step's own key, not one found by a restore key's prefix. */
  exact: boolean;
  /** Bytes of the compressed archive. */
  size: number;
  body: Readable;
}

/** Why the server did not keep a saved cache, in words for the step's log. */
export interface CacheRefusal {
  refused: string;
}

/**
 * Where a stage's caches are kept, as the runner core sees it: the server over the runner
 * protocol (which decides the repository, the scope and who may write — never the runner), or
 * `svc exec`'s local folder.
 */
export interface CacheTransport {
  /** The entry of `key`, else the newest whose key starts with a restore key (in order); undefined when none. */
  restore(key: string, restoreKeys: readonly string[], signal?: AbortSignal): Promise<CacheHit | undefined>;
  /** Stores `archive` (zstd-compressed tar) as `key`; a refusal may come before the archive is read. */
  save(key: string, archive: Readable, signal?: AbortSignal): Promise<{ size: number } | CacheRefusal>;
}
