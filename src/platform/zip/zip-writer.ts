import { pipeline } from 'node:stream/promises';
import { crc32, createDeflateRaw } from 'node:zlib';
import { InvalidInputError } from '../../core/errors.js';
import {
  DOS_DIRECTORY,
  FILE_TYPE,
  FLAG,
  MARKER16,
  MARKER32,
  METHOD,
  VERSION_NEEDED,
  ZIP64_THRESHOLDS,
  ZIP_LIMITS,
  centralHeader,
  dataDescriptor,
  dosDateTime,
  endRecords,
  localHeader,
  unixTimeExtra,
  zip64Extra,
  type HeaderFields,
  type Zip64Thresholds,
  type ZipLimits,
} from './format.js';

/** What a finished zip holds. */
export interface ZipSummary {
  /** Entries: files, folders and symbolic links. */
  entries: number;
  /** The entries' uncompressed bytes (a symbolic link's are its target). */
  bytes: number;
  /** The zip's length. */
  zipBytes: number;
}

/** What every entry has. */
export interface EntryInfo {
  /** A relative `/`-separated name, already checked safe, without a trailing `/`. */
  name: string;
  /** Permission bits (0o7777 at most). */
  mode: number;
  mtime: Date;
}

export interface ZipWriterOptions {
  /** For tests only: ZIP64 records from lower values, so that small zips exercise them. */
  zip64Thresholds?: Zip64Thresholds;
  limits?: ZipLimits;
}

/** The deflate level: zlib's default, a good speed for the size it gives. */
const DEFLATE_LEVEL = 6;

/**
 * Writes a zip entry after entry, as the chunks of bytes each method yields; the caller passes the
 * chunks on in order and writes one entry at a time. Only the central directory stays in memory
 * (at most `limits.maxCentralDirectoryBytes`); file data streams through deflate. Files whose size
 * is known to be 0, folders and symbolic links are stored with their CRC and sizes in the local
 * header; other files are deflated, their CRC and sizes in a data descriptor after the data.
 * Throws InvalidInputError past the limits (the reader would refuse the zip).
 */
export class ZipWriter {
  readonly #thresholds: Zip64Thresholds;
  readonly #limits: ZipLimits;
  readonly #directory: ByteBlocks;
  #offset = 0;
  #entries = 0;
  #bytes = 0;

  constructor(options: ZipWriterOptions = {}) {
    this.#thresholds = options.zip64Thresholds ?? ZIP64_THRESHOLDS;
    this.#limits = options.limits ?? ZIP_LIMITS;
    this.#directory = new ByteBlocks();
  }

  get summary(): ZipSummary {
    return { entries: this.#entries, bytes: this.#bytes, zipBytes: this.#offset };
  }

  /** A regular file of `size` bytes (as its tar header says; the data must match). */
  async *file(info: EntryInfo, size: number, data: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
    const kind = FILE_TYPE.file | (info.mode & 0o7777);
    if (size === 0) {
      // Deflate would make 2 bytes of nothing; stored, the entry needs no data descriptor.
      let read = 0;
      for await (const chunk of data) read += chunk.length;
      if (read !== 0) throw sizeMismatch(info.name, size, read);
      yield* this.#whole(info, info.name, kind << 16, Buffer.alloc(0));
      return;
    }
    const name = this.#startEntry(info.name);
    const offset = this.#offset;
    // The local header comes before the sizes are known: it has a ZIP64 field (and the data
    // descriptor 8-byte sizes) whenever the deflated data could reach the threshold.
    const zip64 = Math.max(size, deflateBound(size)) >= this.#thresholds.bytes;
    const { time, date } = dosDateTime(info.mtime);
    const fields: HeaderFields = {
      versionNeeded: zip64 ? VERSION_NEEDED.zip64 : VERSION_NEEDED.default,
      flags: FLAG.utf8 | FLAG.dataDescriptor,
      method: METHOD.deflate,
      time,
      date,
      crc: 0,
      compressedSize: zip64 ? MARKER32 : 0,
      size: zip64 ? MARKER32 : 0,
      name,
      extra: Buffer.concat([zip64 ? zip64Extra([0, 0]) : Buffer.alloc(0), unixTimeExtra(info.mtime)]),
    };
    yield this.#emit(localHeader(fields));

    let crc = 0;
    let read = 0;
    let written = 0;
    const deflate = createDeflateRaw({ level: DEFLATE_LEVEL });
    const feeding = pipeline(
      data,
      async function* measure(source: AsyncIterable<Buffer>) {
        for await (const chunk of source) {
          crc = crc32(chunk, crc);
          read += chunk.length;
          yield chunk;
        }
      },
      deflate,
    );
    // Its failure also ends the loop below, which throws it; awaited after.
    feeding.catch(() => undefined);
    for await (const chunk of deflate as AsyncIterable<Buffer>) {
      written += chunk.length;
      yield this.#emit(chunk);
    }
    await feeding;
    if (read !== size) throw sizeMismatch(info.name, size, read);

    yield this.#emit(dataDescriptor(crc, written, read, zip64));
    this.#bytes += read;
    this.#addCentral(
      { ...fields, crc, compressedSize: written, size: read, extra: Buffer.alloc(0) },
      kind << 16,
      offset,
      info.mtime,
    );
  }

  /** A folder: `name/`, its mode in the Unix attributes and the DOS folder bit. */
  *directory(info: EntryInfo): Generator<Buffer> {
    const attributes = ((FILE_TYPE.directory | (info.mode & 0o7777)) << 16) | DOS_DIRECTORY;
    yield* this.#whole(info, `${info.name}/`, attributes, Buffer.alloc(0));
  }

  /** A symbolic link as Info-ZIP writes one: the target as the data, S_IFLNK in the mode. */
  *symlink(info: EntryInfo, target: string): Generator<Buffer> {
    yield* this.#whole(info, info.name, (FILE_TYPE.symlink | 0o777) << 16, Buffer.from(target, 'utf8'));
  }

  /** The central directory and the end records; the writer takes no more entries after. */
  *finish(): Generator<Buffer> {
    const directoryOffset = this.#offset;
    for (const block of this.#directory.drain()) yield this.#emit(block);
    const directoryBytes = this.#offset - directoryOffset;
    yield this.#emit(endRecords(this.#entries, directoryBytes, directoryOffset, this.#thresholds));
  }

  /** An entry whose data is known whole and small: stored, CRC and sizes in the local header. */
  *#whole(info: EntryInfo, entryName: string, attributes: number, data: Buffer): Generator<Buffer> {
    const name = this.#startEntry(entryName);
    const offset = this.#offset;
    const { time, date } = dosDateTime(info.mtime);
    const fields: HeaderFields = {
      versionNeeded: VERSION_NEEDED.default,
      flags: FLAG.utf8,
      method: METHOD.store,
      time,
      date,
      crc: crc32(data),
      compressedSize: data.length,
      size: data.length,
      name,
      extra: unixTimeExtra(info.mtime),
    };
    yield this.#emit(localHeader(fields));
    if (data.length > 0) yield this.#emit(data);
    this.#bytes += data.length;
    this.#addCentral({ ...fields, extra: Buffer.alloc(0) }, attributes, offset, info.mtime);
  }

  #startEntry(name: string): Buffer {
    if (this.#entries >= this.#limits.maxEntries)
      throw new InvalidInputError(`the archive has more than ${this.#limits.maxEntries} entries`);
    const bytes = Buffer.from(name, 'utf8');
    // The tar side refuses names over maxNameBytes first, naming the entry; this is the format's own.
    if (bytes.length > MARKER16) throw new InvalidInputError(`an entry name is over ${MARKER16} bytes`);
    this.#entries += 1;
    return bytes;
  }

  /** The entry's central directory header: values at the threshold go to a ZIP64 field. */
  #addCentral(fields: HeaderFields, attributes: number, offset: number, mtime: Date): void {
    const limit = this.#thresholds.bytes;
    const wide = [fields.size, fields.compressedSize, offset].filter((value) => value >= limit);
    const header = centralHeader({
      ...fields,
      versionNeeded: wide.length > 0 ? VERSION_NEEDED.zip64 : fields.versionNeeded,
      size: fields.size >= limit ? MARKER32 : fields.size,
      compressedSize: fields.compressedSize >= limit ? MARKER32 : fields.compressedSize,
      extra: Buffer.concat([wide.length > 0 ? zip64Extra(wide) : Buffer.alloc(0), unixTimeExtra(mtime)]),
      externalAttributes: attributes,
      localHeaderOffset: offset >= limit ? MARKER32 : offset,
    });
    if (this.#directory.length + header.length > this.#limits.maxCentralDirectoryBytes)
      throw new InvalidInputError(
        `the archive's file index would be over ${this.#limits.maxCentralDirectoryBytes} bytes (too many entries or too long names)`,
      );
    this.#directory.append(header);
  }

  #emit(chunk: Buffer): Buffer {
    this.#offset += chunk.length;
    return chunk;
  }
}

/** zlib's deflateBound for raw deflate: the most bytes `size` bytes can deflate to. */
function deflateBound(size: number): number {
  return size + Math.floor(size / 4096) + Math.floor(size / 16384) + Math.floor(size / 33554432) + 13;
}

function sizeMismatch(name: string, size: number, read: number): InvalidInputError {
  return new InvalidInputError(
    `the archive's entry "${name}" has ${read} bytes where its header says ${size}`,
  );
}

/**
 * Bytes appended in blocks of up to 1 MiB: a central directory of many small headers without an
 * object per header, and without copying it all each time it grows.
 */
class ByteBlocks {
  static readonly FIRST_BYTES = 16 * 1024;
  static readonly LARGEST_BYTES = 1024 * 1024;
  readonly #full: Buffer[] = [];
  #current = Buffer.allocUnsafe(ByteBlocks.FIRST_BYTES);
  #used = 0;
  length = 0;

  append(bytes: Buffer): void {
    if (this.#used + bytes.length > this.#current.length) {
      this.#full.push(this.#current.subarray(0, this.#used));
      const next = Math.min(2 * this.#current.length, ByteBlocks.LARGEST_BYTES);
      this.#current = Buffer.allocUnsafe(Math.max(next, bytes.length));
      this.#used = 0;
    }
    bytes.copy(this.#current, this.#used);
    this.#used += bytes.length;
    this.length += bytes.length;
  }

  /** The blocks in order, each forgotten as it is handed out. */
  *drain(): Generator<Buffer> {
    this.#full.push(this.#current.subarray(0, this.#used));
    this.#current = Buffer.alloc(0);
    this.#used = 0;
    for (let block = this.#full.shift(); block !== undefined; block = this.#full.shift())
      if (block.length > 0) yield block;
  }
}
