import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { BlobInfo, BlobStore, ByteRange } from '../../core/blob.js';
import { blobKeySegments, blobPrefixSegments, checkRange } from './blob-key.js';

/** Where unfinished writes are: inside the root, so that a rename into place never crosses disks. */
const UNFINISHED = '.unfinished';

/**
 * Blobs as files under a folder of the server's disk (the default when no object storage is set).
 * A write goes to `<root>/.unfinished/<random>` and is renamed to its key's path once whole (and
 * flushed): a crash midway leaves only an unfinished file, never a partial blob at the key, which
 * `removeUnfinished` removes later. Files are 0600, folders 0700.
 */
export class DiskBlobStore implements BlobStore {
  constructor(private readonly root: string) {}

  /**
   * Removes what writes interrupted by a crash left: unfinished files not written to for `idleMs`
   * (another server sharing the folder may be writing the newer ones). Call at start, and now and then.
   */
  async removeUnfinished(idleMs: number, now = Date.now()): Promise<number> {
    const dir = join(this.root, UNFINISHED);
    let names: string[];
    try {
      names = await readdir(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw error;
    }
    let removed = 0;
    for (const name of names) {
      const info = await stat(join(dir, name)).catch(() => undefined);
      if (info === undefined || now - info.mtimeMs < idleMs) continue;
      await rm(join(dir, name), { force: true });
      removed += 1;
    }
    return removed;
  }

  async put(key: string, body: Readable, signal?: AbortSignal): Promise<{ size: number }> {
    const path = join(this.root, ...blobKeySegments(key));
    const unfinished = join(this.root, UNFINISHED, randomBytes(12).toString('hex'));
    await mkdir(dirname(unfinished), { recursive: true, mode: 0o700 });
    let size = 0;
    body.on('data', (chunk: Buffer) => (size += chunk.length));
    try {
      const file = createWriteStream(unfinished, { mode: 0o600, flush: true });
      await pipeline(body, file, signal === undefined ? {} : { signal });
      await mkdir(dirname(path), { recursive: true, mode: 0o700 });
      await rename(unfinished, path);
    } catch (error) {
      await rm(unfinished, { force: true });
      throw error;
    }
    return { size };
  }

  async get(key: string, range?: ByteRange): Promise<Readable | undefined> {
    const path = join(this.root, ...blobKeySegments(key));
    checkRange(range);
    if (range !== undefined && range.end === range.start)
      return (await stat(path).catch(() => undefined))?.isFile() === true ? Readable.from([]) : undefined;
    // createReadStream's `end` is the last byte, included.
    const stream = createReadStream(
      path,
      range === undefined ? {} : { start: range.start, end: range.end - 1 },
    );
    // Opened before it is answered, so that a missing blob is undefined rather than a failing stream.
    return new Promise((resolve, reject) => {
      stream.once('open', () => resolve(stream));
      stream.once('error', (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT' || error.code === 'EISDIR') resolve(undefined);
        else reject(error);
      });
    });
  }

  async delete(key: string): Promise<void> {
    await rm(join(this.root, ...blobKeySegments(key)), { force: true });
  }

  async *list(prefix: string): AsyncIterable<BlobInfo> {
    const segments = blobPrefixSegments(prefix);
    yield* this.#walk(join(this.root, ...segments), segments.join('/'));
  }

  async *#walk(dir: string, key: string): AsyncIterable<BlobInfo> {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    for (const entry of entries) {
      if (key === '' && entry.name === UNFINISHED) continue;
      const path = join(dir, entry.name);
      const child = key === '' ? entry.name : `${key}/${entry.name}`;
      if (entry.isDirectory()) yield* this.#walk(path, child);
      else if (entry.isFile()) {
        const info = await stat(path);
        yield { key: child, size: info.size, modified: info.mtimeMs };
      }
    }
  }
}
