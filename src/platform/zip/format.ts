/**
 * The records of the ZIP format (PKWARE's APPNOTE.TXT 6.3), as the writer makes them and the reader
 * reads them. All numbers are little-endian.
 */

export const SIGNATURE = {
  local: 0x04034b50,
  dataDescriptor: 0x08074b50,
  central: 0x02014b50,
  zip64End: 0x06064b50,
  zip64Locator: 0x07064b50,
  end: 0x06054b50,
} as const;

/** Fixed sizes of the records, before their variable parts (name, extra field, comment). */
export const RECORD_BYTES = {
  local: 30,
  central: 46,
  end: 22,
  zip64End: 56,
  zip64Locator: 20,
} as const;

export const FLAG = {
  encrypted: 1 << 0,
  /** CRC and sizes follow the data, in a data descriptor (they are known only after it). */
  dataDescriptor: 1 << 3,
  /** The name (and comment) is UTF-8, not CP437. */
  utf8: 1 << 11,
} as const;

export const METHOD = { store: 0, deflate: 8 } as const;

export const EXTRA_ID = { zip64: 0x0001, unixTime: 0x5455 } as const;

/** Unix file types as kept in the high 16 bits of the external attributes (`mode << 16`). */
export const FILE_TYPE = { mask: 0o170000, file: 0o100000, directory: 0o040000, symlink: 0o120000 } as const;

/** The MS-DOS directory attribute, in the low byte of the external attributes. */
export const DOS_DIRECTORY = 0x10;

/** "Made by" Unix (3, so readers use the mode in the external attributes), APPNOTE 4.5. */
export const MADE_BY_UNIX = 3;
export const VERSION_MADE_BY = (MADE_BY_UNIX << 8) | 45;
/** Versions needed to extract: 2.0 for deflate and folders, 4.5 for ZIP64 records. */
export const VERSION_NEEDED = { default: 20, zip64: 45 } as const;

/** The all-ones value of a 32-bit or 16-bit field means "see the ZIP64 record". */
export const MARKER32 = 0xffffffff;
export const MARKER16 = 0xffff;

/** Bounds that both sides keep: the writer never makes a zip that the reader refuses. */
export interface ZipLimits {
  /** Most entries in one zip. */
  readonly maxEntries: number;
  /** Largest central directory, in bytes: the reader holds it whole in memory. */
  readonly maxCentralDirectoryBytes: number;
  /** Longest entry name, in UTF-8 bytes. */
  readonly maxNameBytes: number;
}

export const ZIP_LIMITS: ZipLimits = {
  maxEntries: 1_000_000,
  maxCentralDirectoryBytes: 64 * 1024 * 1024,
  maxNameBytes: 4096,
};

/**
 * From which values the writer uses ZIP64 records: the format's own (a 32-bit size or offset of
 * 0xFFFFFFFF or more, 65535 entries or more), lowered only by tests to make ZIP64 zips small.
 */
export interface Zip64Thresholds {
  readonly bytes: number;
  readonly entries: number;
}

export const ZIP64_THRESHOLDS: Zip64Thresholds = { bytes: MARKER32, entries: MARKER16 };

/** A date as MS-DOS time and date fields (UTC; 2-second steps; clamped to 1980–2107). */
export function dosDateTime(when: Date): { time: number; date: number } {
  const year = when.getUTCFullYear();
  if (Number.isNaN(year) || year < 1980) return { time: 0, date: (1 << 5) | 1 };
  if (year > 2107) return { time: (23 << 11) | (59 << 5) | 29, date: (127 << 9) | (12 << 5) | 31 };
  return {
    time: (when.getUTCHours() << 11) | (when.getUTCMinutes() << 5) | (when.getUTCSeconds() >> 1),
    date: ((year - 1980) << 9) | ((when.getUTCMonth() + 1) << 5) | when.getUTCDate(),
  };
}

/** The date of MS-DOS time and date fields, read as UTC like `dosDateTime` writes them. */
export function fromDosDateTime(time: number, date: number): Date {
  return new Date(
    Date.UTC(
      (date >> 9) + 1980,
      ((date >> 5) & 0xf) - 1,
      date & 0x1f,
      time >> 11,
      (time >> 5) & 0x3f,
      (time & 0x1f) * 2,
    ),
  );
}

/** One field of an extra block: a 2-byte id, a 2-byte length, the data. */
export function extraField(id: number, data: Buffer): Buffer {
  const field = Buffer.alloc(4 + data.length);
  field.writeUInt16LE(id, 0);
  field.writeUInt16LE(data.length, 2);
  data.copy(field, 4);
  return field;
}

/**
 * The ZIP64 extended information field: the 8-byte values whose 32-bit fields hold the marker, in
 * the order the format fixes (size, compressed size, local header offset).
 */
export function zip64Extra(values: readonly number[]): Buffer {
  const data = Buffer.alloc(8 * values.length);
  values.forEach((value, index) => data.writeBigUInt64LE(BigInt(value), 8 * index));
  return extraField(EXTRA_ID.zip64, data);
}

/**
 * The extended timestamp field with the modification time in Unix seconds: Info-ZIP's `unzip`
 * restores the exact time from it, where the DOS fields have 2-second steps and no time zone.
 */
export function unixTimeExtra(when: Date): Buffer {
  const data = Buffer.alloc(5);
  data.writeUInt8(1, 0); // flags: the modification time is present
  const seconds = Math.floor(when.getTime() / 1000);
  data.writeUInt32LE(Number.isFinite(seconds) ? Math.min(Math.max(seconds, 0), MARKER32) : 0, 1);
  return extraField(EXTRA_ID.unixTime, data);
}

/** The fields of a local or central header; 32-bit values are already the marker when in ZIP64. */
export interface HeaderFields {
  versionNeeded: number;
  flags: number;
  method: number;
  time: number;
  date: number;
  crc: number;
  compressedSize: number;
  size: number;
  name: Buffer;
  extra: Buffer;
}

export function localHeader(fields: HeaderFields): Buffer {
  const { name, extra } = fields;
  const header = Buffer.alloc(RECORD_BYTES.local + name.length + extra.length);
  header.writeUInt32LE(SIGNATURE.local, 0);
  header.writeUInt16LE(fields.versionNeeded, 4);
  header.writeUInt16LE(fields.flags, 6);
  header.writeUInt16LE(fields.method, 8);
  header.writeUInt16LE(fields.time, 10);
  header.writeUInt16LE(fields.date, 12);
  header.writeUInt32LE(fields.crc, 14);
  header.writeUInt32LE(fields.compressedSize, 18);
  header.writeUInt32LE(fields.size, 22);
  header.writeUInt16LE(name.length, 26);
  header.writeUInt16LE(extra.length, 28);
  name.copy(header, RECORD_BYTES.local);
  extra.copy(header, RECORD_BYTES.local + name.length);
  return header;
}

/** A central directory header: the local fields plus the entry's attributes and place. */
export function centralHeader(
  fields: HeaderFields & { externalAttributes: number; localHeaderOffset: number },
): Buffer {
  const { name, extra } = fields;
  const header = Buffer.alloc(RECORD_BYTES.central + name.length + extra.length);
  header.writeUInt32LE(SIGNATURE.central, 0);
  header.writeUInt16LE(VERSION_MADE_BY, 4);
  header.writeUInt16LE(fields.versionNeeded, 6);
  header.writeUInt16LE(fields.flags, 8);
  header.writeUInt16LE(fields.method, 10);
  header.writeUInt16LE(fields.time, 12);
  header.writeUInt16LE(fields.date, 14);
  header.writeUInt32LE(fields.crc, 16);
  header.writeUInt32LE(fields.compressedSize, 20);
  header.writeUInt32LE(fields.size, 24);
  header.writeUInt16LE(name.length, 28);
  header.writeUInt16LE(extra.length, 30);
  // comment length, disk number, internal attributes: all 0
  header.writeUInt32LE(fields.externalAttributes >>> 0, 38);
  header.writeUInt32LE(fields.localHeaderOffset, 42);
  name.copy(header, RECORD_BYTES.central);
  extra.copy(header, RECORD_BYTES.central + name.length);
  return header;
}

/** The data descriptor after a file's data: 8-byte sizes when its local header has a ZIP64 field. */
export function dataDescriptor(crc: number, compressedSize: number, size: number, zip64: boolean): Buffer {
  const descriptor = Buffer.alloc(zip64 ? 24 : 16);
  descriptor.writeUInt32LE(SIGNATURE.dataDescriptor, 0);
  descriptor.writeUInt32LE(crc, 4);
  if (zip64) {
    descriptor.writeBigUInt64LE(BigInt(compressedSize), 8);
    descriptor.writeBigUInt64LE(BigInt(size), 16);
  } else {
    descriptor.writeUInt32LE(compressedSize, 8);
    descriptor.writeUInt32LE(size, 12);
  }
  return descriptor;
}

/**
 * The records after the central directory: the end of central directory record, preceded by the
 * ZIP64 end record and its locator when a count, size or offset does not fit the end record.
 */
export function endRecords(
  entries: number,
  directoryBytes: number,
  directoryOffset: number,
  thresholds: Zip64Thresholds,
): Buffer {
  const zip64 =
    entries >= thresholds.entries ||
    directoryBytes >= thresholds.bytes ||
    directoryOffset >= thresholds.bytes;
  const end = Buffer.alloc(RECORD_BYTES.end);
  end.writeUInt32LE(SIGNATURE.end, 0);
  // disk numbers (4, 6): 0
  end.writeUInt16LE(zip64 ? MARKER16 : entries, 8);
  end.writeUInt16LE(zip64 ? MARKER16 : entries, 10);
  end.writeUInt32LE(zip64 ? MARKER32 : directoryBytes, 12);
  end.writeUInt32LE(zip64 ? MARKER32 : directoryOffset, 16);
  if (!zip64) return end;

  const zip64End = Buffer.alloc(RECORD_BYTES.zip64End);
  zip64End.writeUInt32LE(SIGNATURE.zip64End, 0);
  zip64End.writeBigUInt64LE(BigInt(RECORD_BYTES.zip64End - 12), 4); // the size of what follows
  zip64End.writeUInt16LE(VERSION_MADE_BY, 12);
  zip64End.writeUInt16LE(VERSION_NEEDED.zip64, 14);
  // disk numbers (16, 20): 0
  zip64End.writeBigUInt64LE(BigInt(entries), 24);
  zip64End.writeBigUInt64LE(BigInt(entries), 32);
  zip64End.writeBigUInt64LE(BigInt(directoryBytes), 40);
  zip64End.writeBigUInt64LE(BigInt(directoryOffset), 48);

  const locator = Buffer.alloc(RECORD_BYTES.zip64Locator);
  locator.writeUInt32LE(SIGNATURE.zip64Locator, 0);
  // disk with the ZIP64 end record (4): 0
  locator.writeBigUInt64LE(BigInt(directoryOffset + directoryBytes), 8);
  locator.writeUInt32LE(1, 16); // total disks
  return Buffer.concat([zip64End, locator, end]);
}
