import type { Readable } from 'node:stream';

/** Bytes `start` (included) to `end` (excluded) of a blob. */
export interface ByteRange {
  start: number;
  end: number;
}

/** A stored blob as `BlobStore.list` reports it. */
export interface BlobInfo {
  key: string;
  size: number;
  /** Epoch milliseconds it was stored. */
  modified: number;
}

/**
 * Large binary objects streamed in and out — cache archives and artifacts — on the server's disk
 * or in object storage (SVC_OBJSTORE_*). Keys are `/`-separated paths of safe segments
 * (`[A-Za-z0-9._-]`, not `.` or `..`); an adapter refuses any other.
 * - `put` stores the stream as `key`; `get` sees it only once it is whole (a crash midway leaves
 *   nothing readable). A stream that errors rejects `put` and stores nothing. Nothing is held whole
 *   in memory. An existing key is replaced.
 * - `get` answers the blob's bytes — those of `range` only when given, `start` included, `end`
 *   not, within the blob — or undefined when there is none.
 * - `delete` of a missing key is no error.
 * - `list` answers the blobs under a key prefix (for sweeping blobs no index refers to).
 */
export interface BlobStore {
  put(key: string, body: Readable, signal?: AbortSignal): Promise<{ size: number }>;
  get(key: string, range?: ByteRange): Promise<Readable | undefined>;
  delete(key: string): Promise<void>;
  list(prefix: string): AsyncIterable<BlobInfo>;
}
