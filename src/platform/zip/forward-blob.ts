import { Readable } from 'node:stream';
import { ChunkReader } from '../tar/chunk-reader.js';
import type { ZipBlob } from './zip-blob.js';

/** A gap between two ranges read through rather than opened anew (a request costs more). */
const MAX_SKIP = 1024 * 1024;

/** A ZipBlob that also lets go of what it holds open. */
export interface ClosableZipBlob extends ZipBlob {
  close(): void;
}

interface Cursor {
  stream: Readable;
  reader: ChunkReader;
  /** The blob offset the reader is at. */
  at: number;
}

/**
 * `blob` for a reader that asks its ranges in increasing order, each read to its end before the next
 * (every entry of a zip, one after the other): one open stream from the first range to the blob's
 * end serves them all, skipping the gaps (local headers read apart, small files), instead of a
 * request per range — two per file, which for thousands of files in a bucket is thousands of GETs.
 * A range before the stream's position, far after it, or asked while the previous one was left
 * unread, opens the stream anew there.
 */
export function forwardZipBlob(blob: ZipBlob): ClosableZipBlob {
  let cursor: Cursor | undefined;
  /** The range handed out last is still being read: the cursor's position is not known yet. */
  let busy = false;
  const drop = () => {
    cursor?.stream.destroy();
    cursor = undefined;
  };
  const truncated = () => new Error('the stored zip ended before the range asked');
  return {
    size: blob.size,
    async range(start, end) {
      if (busy || cursor === undefined || start < cursor.at || start - cursor.at > MAX_SKIP) {
        drop();
        busy = false;
        const stream = await blob.range(start, blob.size);
        cursor = { stream, reader: new ChunkReader(stream), at: start };
      }
      const current = cursor;
      await current.reader.skip(start - current.at, truncated);
      current.at = start;
      busy = true;
      async function* bytes(): AsyncGenerator<Buffer> {
        let done = false;
        try {
          for await (const piece of current.reader.slices(end - start, truncated)) yield piece;
          done = true;
        } finally {
          if (done) {
            current.at = end;
            busy = false;
          } else if (cursor === current) drop();
        }
      }
      return Readable.from(bytes(), { objectMode: false });
    },
    close: drop,
  };
}
