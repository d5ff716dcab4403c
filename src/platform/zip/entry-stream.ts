import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { crc32, createInflateRaw } from 'node:zlib';
import type { ZipEntry } from './central-directory.js';
import { CorruptZipError } from './errors.js';
import { FLAG, METHOD, RECORD_BYTES, SIGNATURE } from './format.js';
import { readRange, type ZipBlob } from './zip-blob.js';

/**
 * The uncompressed bytes of one entry of `blob`, reading only its local header and its data. The
 * local header is checked before this resolves (so a caller can still answer an error status);
 * the data as it streams: more bytes than `entry.size`, fewer, or a CRC other than `entry.crc`
 * fail the stream with CorruptZipError. A symbolic link's bytes are its target. Destroying the
 * stream destroys the blob's range stream.
 */
export async function entryStream(blob: ZipBlob, entry: ZipEntry): Promise<Readable> {
  const { name, method, localHeaderOffset } = entry;
  if ((entry.flags & FLAG.encrypted) !== 0)
    throw new CorruptZipError(`entry "${name}" is encrypted, which svc does not read`);
  if (method !== METHOD.store && method !== METHOD.deflate)
    throw new CorruptZipError(
      `entry "${name}" uses compression method ${method}; svc reads 0 (stored) and 8 (deflate)`,
    );

  // The local name is the central one; its extra field may differ (ZIP64, timestamps), so its
  // length is read from the header, not taken from the central directory.
  const nameBytes = Buffer.from(name, 'utf8');
  const headerEnd = Math.min(blob.size, localHeaderOffset + RECORD_BYTES.local + nameBytes.length);
  const header = await readRange(blob, localHeaderOffset, headerEnd);
  if (header.length < RECORD_BYTES.local || header.readUInt32LE(0) !== SIGNATURE.local)
    throw new CorruptZipError(`entry "${name}" has no local header at ${localHeaderOffset}`);
  const localName = header.subarray(RECORD_BYTES.local, RECORD_BYTES.local + header.readUInt16LE(26));
  if (!localName.equals(nameBytes))
    throw new CorruptZipError(`entry "${name}" is named "${localName.toString('utf8')}" in its local header`);
  const dataStart = localHeaderOffset + RECORD_BYTES.local + localName.length + header.readUInt16LE(28);
  if (dataStart + entry.compressedSize > blob.size)
    throw new CorruptZipError(`entry "${name}"'s data runs past the end of the blob`);

  const data = await blob.range(dataStart, dataStart + entry.compressedSize);
  return Readable.from(checkedBytes(data, entry), { objectMode: false });
}

async function* checkedBytes(data: Readable, entry: ZipEntry): AsyncGenerator<Buffer> {
  const inflate = entry.method === METHOD.deflate ? createInflateRaw() : undefined;
  const source = inflate ?? data;
  const feeding = inflate === undefined ? Promise.resolve() : pipeline(data, inflate);
  // Its failure also ends the loop below, which throws it; awaited after.
  feeding.catch(() => undefined);
  let crc = 0;
  let size = 0;
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      size += chunk.length;
      // A zip bomb stops here: nothing past the size the directory claims is produced.
      if (size > entry.size)
        throw new CorruptZipError(`entry "${entry.name}" has more than its ${entry.size} bytes`);
      crc = crc32(chunk, crc);
      yield chunk;
    }
    await feeding;
  } catch (error) {
    if (isZlibError(error))
      throw new CorruptZipError(`entry "${entry.name}" does not inflate: ${error.message}`, { cause: error });
    throw error;
  } finally {
    data.destroy();
    inflate?.destroy();
  }
  if (size !== entry.size)
    throw new CorruptZipError(
      `entry "${entry.name}" has ${size} bytes where the directory says ${entry.size}`,
    );
  if (crc !== entry.crc)
    throw new CorruptZipError(
      `entry "${entry.name}" fails its CRC check (${hex(crc)} where the directory says ${hex(entry.crc)})`,
    );
}

function isZlibError(error: unknown): error is Error {
  const code = (error as { code?: unknown } | undefined)?.code;
  return error instanceof Error && typeof code === 'string' && code.startsWith('Z_');
}

function hex(crc: number): string {
  return crc.toString(16).padStart(8, '0');
}
