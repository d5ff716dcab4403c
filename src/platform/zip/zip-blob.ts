import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { CorruptZipError } from './errors.js';

/**
 * A stored zip as the reader sees it: its length and its bytes by ranges, so that listing reads only
 * the end records and the central directory, and opening a file only its local header and data.
 * Over a BlobStore it is one ranged `get` per range.
 */
export interface ZipBlob {
  /** The blob's length in bytes. */
  readonly size: number;
  /**
   * Bytes [start, end) of the blob as a stream, 0 <= start <= end <= size. The reader may destroy
   * the stream before its end (an entry that fails its checks), which must release what it holds.
   */
  range(start: number, end: number): Readable | Promise<Readable>;
}

/** A ZipBlob over a function that answers a range whole (small blobs, tests). */
export function zipBlobOfReads(size: number, read: (start: number, end: number) => Promise<Buffer>): ZipBlob {
  return { size, range: async (start, end) => Readable.from([await read(start, end)]) };
}

/** A ZipBlob over bytes in memory. */
export function zipBlobOfBuffer(bytes: Buffer): ZipBlob {
  return zipBlobOfReads(bytes.length, (start, end) => Promise.resolve(bytes.subarray(start, end)));
}

/** A ZipBlob over a file. */
export async function zipBlobOfFile(path: string): Promise<ZipBlob> {
  const { size } = await stat(path);
  return {
    size,
    // createReadStream's `end` is inclusive, and an empty range would read the whole file.
    range: (start, end) =>
      end > start ? createReadStream(path, { start, end: end - 1 }) : Readable.from([]),
  };
}

/**
 * Bytes [start, end) read whole: for records the reader parses (local headers, end records, the
 * central directory — which the caller bounds). Never holds more than `end - start` bytes.
 */
export async function readRange(blob: ZipBlob, start: number, end: number): Promise<Buffer> {
  if (start < 0 || end > blob.size || start > end)
    throw new CorruptZipError(`a record at bytes ${start}–${end} lies outside the ${blob.size}-byte blob`);
  const wanted = end - start;
  const bytes = Buffer.allocUnsafe(wanted);
  let got = 0;
  const stream = await blob.range(start, end);
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (got + chunk.length > wanted)
        throw new CorruptZipError(`the blob answered more than the ${wanted} bytes asked at ${start}`);
      chunk.copy(bytes, got);
      got += chunk.length;
    }
  } finally {
    stream.destroy();
  }
  if (got < wanted)
    throw new CorruptZipError(`the blob ended after ${start + got} bytes where it should have ${end}`);
  return bytes;
}
