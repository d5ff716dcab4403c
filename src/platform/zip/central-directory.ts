import { CorruptZipError } from './errors.js';
import {
  DOS_DIRECTORY,
  EXTRA_ID,
  FILE_TYPE,
  FLAG,
  MADE_BY_UNIX,
  MARKER16,
  MARKER32,
  METHOD,
  RECORD_BYTES,
  SIGNATURE,
  ZIP_LIMITS,
  fromDosDateTime,
  type ZipLimits,
} from './format.js';
import { readRange, type ZipBlob } from './zip-blob.js';

/** One entry of a zip's central directory: the artifact's file index. */
export interface ZipEntry {
  /** The name as stored: `/`-separated, a folder's ending with `/`. */
  name: string;
  /** Uncompressed bytes. */
  size: number;
  compressedSize: number;
  crc: number;
  /** 0 stored, 8 deflated; entryStream refuses others. */
  method: number;
  /** General purpose flags; entryStream refuses encrypted entries (bit 0). */
  flags: number;
  /** Permission bits: from the Unix attributes, else 0o755 for folders and 0o644 for files. */
  mode: number;
  isDirectory: boolean;
  /** A symbolic link: its data is the target. */
  isSymlink: boolean;
  modified: Date;
  /** Where the entry's local header starts in the blob. */
  localHeaderOffset: number;
}

/** The most a comment after the end record can be (16-bit length), plus the ZIP64 locator. */
const TAIL_BYTES = RECORD_BYTES.end + MARKER16 + RECORD_BYTES.zip64Locator;

/** Deflate makes at most about 1032 bytes from one. A larger claim is a lie, refused early. */
const MAX_DEFLATE_RATIO = 1032;

/**
 * The central directory of the zip in `blob`, in the zip's order. Reads the end records, then the
 * directory in one range. Throws CorruptZipError for a blob that is not a zip, one whose records
 * disagree or point outside it, and one over `limits` (more entries than `maxEntries`, a directory
 * over `maxCentralDirectoryBytes`): memory stays bounded whatever the blob claims.
 */
export async function readCentralDirectory(
  blob: ZipBlob,
  limits: ZipLimits = ZIP_LIMITS,
): Promise<ZipEntry[]> {
  const { entries, offset, bytes, endsBefore } = await findDirectory(blob);
  if (entries > limits.maxEntries)
    throw new CorruptZipError(`it has ${entries} entries, over the limit of ${limits.maxEntries}`);
  if (bytes > limits.maxCentralDirectoryBytes)
    throw new CorruptZipError(
      `its central directory is ${bytes} bytes, over the limit of ${limits.maxCentralDirectoryBytes}`,
    );
  if (offset + bytes > endsBefore)
    throw new CorruptZipError(`its central directory (${bytes} bytes at ${offset}) runs past its end record`);
  if (entries * RECORD_BYTES.central > bytes)
    throw new CorruptZipError(`its ${entries} entries cannot fit in a ${bytes}-byte central directory`);
  return parseDirectory(await readRange(blob, offset, offset + bytes), entries, offset);
}

interface DirectoryPlace {
  entries: number;
  offset: number;
  bytes: number;
  /** Where the end records start: the directory must end before. */
  endsBefore: number;
}

/** The end of central directory record, and the ZIP64 one when its locator precedes it. */
async function findDirectory(blob: ZipBlob): Promise<DirectoryPlace> {
  if (blob.size < RECORD_BYTES.end)
    throw new CorruptZipError(`the blob is ${blob.size} bytes, too short for a zip`);
  const tailStart = Math.max(0, blob.size - TAIL_BYTES);
  const tail = await readRange(blob, tailStart, blob.size);
  const at = findEndRecord(tail);
  if (at === undefined)
    throw new CorruptZipError('no end of central directory record (not a zip, or truncated)');
  const end = tail.subarray(at);
  if (end.readUInt16LE(4) !== 0 && end.readUInt16LE(4) !== MARKER16)
    throw new CorruptZipError('it spans several disks, which svc does not read');

  const locatorAt = at - RECORD_BYTES.zip64Locator;
  if (locatorAt >= 0 && tail.readUInt32LE(locatorAt) === SIGNATURE.zip64Locator) {
    const zip64EndAt = safeNumber(tail.readBigUInt64LE(locatorAt + 8), 'the ZIP64 end record offset');
    const zip64End = await readRange(blob, zip64EndAt, zip64EndAt + RECORD_BYTES.zip64End);
    if (zip64End.readUInt32LE(0) !== SIGNATURE.zip64End)
      throw new CorruptZipError(`no ZIP64 end record at ${zip64EndAt}, where its locator says`);
    return {
      entries: safeNumber(zip64End.readBigUInt64LE(32), 'the entry count'),
      bytes: safeNumber(zip64End.readBigUInt64LE(40), 'the central directory size'),
      offset: safeNumber(zip64End.readBigUInt64LE(48), 'the central directory offset'),
      endsBefore: zip64EndAt,
    };
  }
  return {
    entries: end.readUInt16LE(10),
    bytes: end.readUInt32LE(12),
    offset: end.readUInt32LE(16),
    endsBefore: tailStart + at,
  };
}

/** The last end record signature whose comment fits in what follows it. */
function findEndRecord(tail: Buffer): number | undefined {
  for (let at = tail.length - RECORD_BYTES.end; at >= 0; at -= 1)
    if (
      tail.readUInt32LE(at) === SIGNATURE.end &&
      at + RECORD_BYTES.end + tail.readUInt16LE(at + 20) <= tail.length
    )
      return at;
  return undefined;
}

function parseDirectory(directory: Buffer, count: number, directoryOffset: number): ZipEntry[] {
  const entries: ZipEntry[] = [];
  let at = 0;
  for (let index = 0; index < count; index += 1) {
    if (at + RECORD_BYTES.central > directory.length || directory.readUInt32LE(at) !== SIGNATURE.central)
      throw new CorruptZipError(`central directory entry ${index + 1} of ${count} is missing or broken`);
    const nameBytes = directory.readUInt16LE(at + 28);
    const extraBytes = directory.readUInt16LE(at + 30);
    const commentBytes = directory.readUInt16LE(at + 32);
    const next = at + RECORD_BYTES.central + nameBytes + extraBytes + commentBytes;
    if (next > directory.length)
      throw new CorruptZipError(`central directory entry ${index + 1} of ${count} runs past the directory`);
    const entry = parseEntry(directory.subarray(at, next), nameBytes, extraBytes);
    checkEntry(entry, directoryOffset);
    entries.push(entry);
    at = next;
  }
  return entries;
}

function parseEntry(header: Buffer, nameBytes: number, extraBytes: number): ZipEntry {
  const name = header.toString('utf8', RECORD_BYTES.central, RECORD_BYTES.central + nameBytes);
  const extra = header.subarray(
    RECORD_BYTES.central + nameBytes,
    RECORD_BYTES.central + nameBytes + extraBytes,
  );
  const fields = extraFields(extra, name);
  // The ZIP64 field holds, in this order, only the values whose 32-bit fields are the marker.
  const wide = fields.get(EXTRA_ID.zip64) ?? Buffer.alloc(0);
  let wideAt = 0;
  const value32 = (at: number, what: string): number => {
    const value = header.readUInt32LE(at);
    if (value !== MARKER32) return value;
    if (wideAt + 8 > wide.length) throw new CorruptZipError(`entry "${name}" lacks its ZIP64 ${what}`);
    wideAt += 8;
    return safeNumber(wide.readBigUInt64LE(wideAt - 8), `entry "${name}"'s ${what}`);
  };
  const size = value32(24, 'size');
  const compressedSize = value32(20, 'compressed size');
  const localHeaderOffset = value32(42, 'offset');

  const external = header.readUInt32LE(38);
  const unixMode = header.readUInt8(5) === MADE_BY_UNIX ? external >>> 16 : 0;
  const type = unixMode & FILE_TYPE.mask;
  const isDirectory =
    name.endsWith('/') ||
    type === FILE_TYPE.directory ||
    (unixMode === 0 && (external & DOS_DIRECTORY) !== 0);
  const unixTime = fields.get(EXTRA_ID.unixTime);
  const modified =
    unixTime !== undefined && unixTime.length >= 5 && (unixTime.readUInt8(0) & 1) !== 0
      ? new Date(unixTime.readUInt32LE(1) * 1000)
      : fromDosDateTime(header.readUInt16LE(12), header.readUInt16LE(14));
  return {
    name,
    size,
    compressedSize,
    crc: header.readUInt32LE(16),
    method: header.readUInt16LE(10),
    flags: header.readUInt16LE(8),
    mode: unixMode !== 0 ? unixMode & 0o7777 : isDirectory ? 0o755 : 0o644,
    isDirectory,
    isSymlink: type === FILE_TYPE.symlink,
    modified,
    localHeaderOffset,
  };
}

/** An extra block's fields by id (the first of each id). */
function extraFields(extra: Buffer, name: string): Map<number, Buffer> {
  const fields = new Map<number, Buffer>();
  for (let at = 0; at + 4 <= extra.length;) {
    const id = extra.readUInt16LE(at);
    const length = extra.readUInt16LE(at + 2);
    if (at + 4 + length > extra.length)
      throw new CorruptZipError(`entry "${name}" has an extra field running past its end`);
    if (!fields.has(id)) fields.set(id, extra.subarray(at + 4, at + 4 + length));
    at += 4 + length;
  }
  return fields;
}

/** Sizes and places that cannot be true, refused before anything trusts them. */
function checkEntry(entry: ZipEntry, directoryOffset: number): void {
  const { name, size, compressedSize, localHeaderOffset, method } = entry;
  // An encrypted entry's data has a header of its own; entryStream refuses it anyway.
  const encrypted = (entry.flags & FLAG.encrypted) !== 0;
  if (localHeaderOffset + RECORD_BYTES.local + compressedSize > directoryOffset)
    throw new CorruptZipError(
      `entry "${name}" claims ${compressedSize} bytes at ${localHeaderOffset}, past the central directory at ${directoryOffset}`,
    );
  if (method === METHOD.store && !encrypted && size !== compressedSize)
    throw new CorruptZipError(
      `entry "${name}" is stored, yet its size ${size} differs from ${compressedSize}`,
    );
  if (method === METHOD.deflate && size > MAX_DEFLATE_RATIO * compressedSize + 1024)
    throw new CorruptZipError(`entry "${name}" claims ${size} bytes from only ${compressedSize} deflated`);
}

function safeNumber(value: bigint, what: string): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER))
    throw new CorruptZipError(`${what} is ${value}, beyond any blob`);
  return Number(value);
}
