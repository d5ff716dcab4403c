/*
 * The tar header as POSIX describes it (ustar, with pax extended headers for what does not fit),
 * read from ustar, pax and GNU archives (GNU's long names and base-256 numbers) and always written
 * as ustar + pax. Only what a cache or an artifact needs is kept: names, link targets, mode,
 * owner, size and modification time; other pax records (extended attributes, access times) are
 * left out on purpose, so that what an extractor sees is only what svc decided.
 */

/** An entry's kind, named as tar-stream names them (svc's other tar code uses that library). */
export type TarType =
  | 'file'
  | 'link'
  | 'symlink'
  | 'character-device'
  | 'block-device'
  | 'directory'
  | 'fifo'
  | 'contiguous-file';

export interface TarEntry {
  name: string;
  /** null: a kind svc does not know (sparse files, volume labels, …), by its type flag in `flag`. */
  type: TarType | null;
  flag: string;
  mode: number;
  uid: number;
  gid: number;
  size: number;
  /** Seconds since the epoch. */
  mtime: number;
  linkname: string | null;
  uname: string;
  gname: string;
}

const TYPES: Record<string, TarType> = {
  '0': 'file',
  '\0': 'file',
  '1': 'link',
  '2': 'symlink',
  '3': 'character-device',
  '4': 'block-device',
  '5': 'directory',
  '6': 'fifo',
  '7': 'contiguous-file',
};

const FLAGS: Record<TarType, string> = {
  file: '0',
  link: '1',
  symlink: '2',
  'character-device': '3',
  'block-device': '4',
  directory: '5',
  fifo: '6',
  'contiguous-file': '7',
};

export const BLOCK = 512;

/** Bytes of padding after `size` bytes of data, up to the next block. */
export function paddingOf(size: number): number {
  return (BLOCK - (size % BLOCK)) % BLOCK;
}

/** The checksum field counts as eight spaces. */
function checksumOf(block: Buffer): number {
  let sum = 8 * 0x20;
  for (let i = 0; i < BLOCK; i++) if (i < 148 || i >= 156) sum += block[i] ?? 0;
  return sum;
}

function text(block: Buffer, offset: number, length: number): string {
  const field = block.subarray(offset, offset + length);
  const end = field.indexOf(0);
  return field.subarray(0, end < 0 ? length : end).toString('utf8');
}

/** An octal field (spaces and NULs around it), or GNU's base-256 for large values. */
function numberAt(block: Buffer, offset: number, length: number): number {
  const field = block.subarray(offset, offset + length);
  if (((field[0] ?? 0) & 0x80) !== 0) {
    if (((field[0] ?? 0) & 0x40) !== 0) throw new Error('a negative number in a tar header');
    let value = (field[0] ?? 0) & 0x3f;
    for (let i = 1; i < field.length; i++) value = value * 256 + (field[i] ?? 0);
    if (!Number.isSafeInteger(value)) throw new Error('a number too large in a tar header');
    return value;
  }
  const digits = field
    .toString('latin1')
    .replace(/[\0 ]+$/, '')
    .replace(/^[ ]+/, '');
  if (digits === '') return 0;
  if (!/^[0-7]+$/.test(digits))
    throw new Error(`a malformed number "${digits.slice(0, 20)}" in a tar header`);
  return parseInt(digits, 8);
}

/** The header in `block`; undefined for a zero block (the end of an archive). Throws for a corrupt one. */
export function decodeHeader(block: Buffer): TarEntry | undefined {
  if (block.every((byte) => byte === 0)) return undefined;
  if (checksumOf(block) !== numberAt(block, 148, 8))
    throw new Error('a tar header with a wrong checksum: the archive is corrupt');
  const flag = String.fromCharCode(block[156] ?? 0);
  let name = text(block, 0, 100);
  const magic = block.subarray(257, 263).toString('latin1');
  // ustar's prefix field; GNU's format keeps other things there.
  if (magic === 'ustar\0' && block[345] !== 0) name = `${text(block, 345, 155)}/${name}`;
  let type: TarType | null = TYPES[flag] ?? null;
  // Old archives mark folders with a trailing slash only.
  if (type === 'file' && name.endsWith('/')) type = 'directory';
  return {
    name,
    type,
    flag,
    mode: numberAt(block, 100, 8),
    uid: numberAt(block, 108, 8),
    gid: numberAt(block, 116, 8),
    size: numberAt(block, 124, 12),
    mtime: numberAt(block, 136, 12),
    linkname: block[157] === 0 ? null : text(block, 157, 100),
    uname: text(block, 265, 32),
    gname: text(block, 297, 32),
  };
}

/** pax records (`<length> <key>=<value>\n`); throws for a malformed one. */
export function decodePax(data: Buffer): Map<string, string> {
  const records = new Map<string, string>();
  let at = 0;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    const length = space < 0 ? NaN : Number(data.subarray(at, space).toString('latin1'));
    if (!Number.isSafeInteger(length) || length <= space - at + 1 || at + length > data.length)
      throw new Error('a malformed pax record in the archive');
    const record = data.subarray(space + 1, at + length - 1).toString('utf8');
    const equals = record.indexOf('=');
    if (equals < 0 || data[at + length - 1] !== 0x0a)
      throw new Error('a malformed pax record in the archive');
    records.set(record.slice(0, equals), record.slice(equals + 1));
    at += length;
  }
  return records;
}

function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  const bodyBytes = Buffer.byteLength(body);
  // The length counts its own digits.
  let length = bodyBytes + String(bodyBytes).length;
  if (String(length).length !== String(bodyBytes).length) length = bodyBytes + String(length).length;
  return `${length}${body}`;
}

function writeText(block: Buffer, value: string, offset: number, length: number): void {
  block.write(value, offset, length, 'utf8');
}

function writeOctal(block: Buffer, value: number, offset: number, length: number): void {
  block.write(`${value.toString(8).padStart(length - 1, '0')}\0`, offset, length, 'latin1');
}

/** A name split into ustar's prefix and name fields, or undefined when it cannot be. */
function splitName(name: string): { prefix: string; name: string } | undefined {
  if (!/^[\x20-\x7e]*$/.test(name)) return undefined;
  if (name.length <= 100) return { prefix: '', name };
  for (let slash = name.indexOf('/'); slash >= 0; slash = name.indexOf('/', slash + 1)) {
    if (slash > 155) return undefined;
    if (name.length - slash - 1 <= 100 && slash > 0)
      return { prefix: name.slice(0, slash), name: name.slice(slash + 1) };
  }
  return undefined;
}

const MAX_OCTAL_8 = 0o7777777;
const MAX_OCTAL_12 = 0o77777777777;

function ustarBlock(
  entry: TarEntry,
  flag: string,
  fields: { prefix: string; name: string } | undefined,
): Buffer {
  const block = Buffer.alloc(BLOCK);
  const fitting = fields ?? { prefix: '', name: entry.name.slice(0, 100) };
  writeText(block, fitting.name, 0, 100);
  writeOctal(block, entry.mode & 0o7777, 100, 8);
  writeOctal(block, entry.uid <= MAX_OCTAL_8 ? entry.uid : 0, 108, 8);
  writeOctal(block, entry.gid <= MAX_OCTAL_8 ? entry.gid : 0, 116, 8);
  writeOctal(block, entry.size <= MAX_OCTAL_12 ? entry.size : 0, 124, 12);
  writeOctal(block, Math.min(Math.max(0, Math.floor(entry.mtime)), MAX_OCTAL_12), 136, 12);
  block.write(flag, 156, 1, 'latin1');
  if (entry.linkname !== null) writeText(block, entry.linkname, 157, 100);
  block.write('ustar\x0000', 257, 8, 'latin1');
  writeText(block, entry.uname, 265, 32);
  writeText(block, entry.gname, 297, 32);
  writeOctal(block, 0, 329, 8);
  writeOctal(block, 0, 337, 8);
  writeText(block, fitting.prefix, 345, 155);
  block.write(`${checksumOf(block).toString(8).padStart(6, '0')}\0 `, 148, 8, 'latin1');
  return block;
}

/**
 * The blocks that start `entry` in an archive: its ustar header, after a pax header when a name,
 * link target, owner or size does not fit ustar's fields. Its data (`entry.size` bytes, then
 * padding) is the caller's to write.
 */
export function encodeHeader(entry: TarEntry): Buffer[] {
  const flag = entry.type === null ? entry.flag : FLAGS[entry.type];
  // A folder's name is written as given: its type says what it is (tar-stream, which reads svc's
  // other archives, keeps a trailing slash in the name).
  const name = entry.name;
  const fields = splitName(name);
  let pax = '';
  if (fields === undefined) pax += paxRecord('path', name);
  if (entry.linkname !== null && (entry.linkname.length > 100 || !/^[\x20-\x7e]*$/.test(entry.linkname)))
    pax += paxRecord('linkpath', entry.linkname);
  if (entry.size > MAX_OCTAL_12) pax += paxRecord('size', String(entry.size));
  if (entry.uid > MAX_OCTAL_8) pax += paxRecord('uid', String(entry.uid));
  if (entry.gid > MAX_OCTAL_8) pax += paxRecord('gid', String(entry.gid));
  if (Buffer.byteLength(entry.uname) > 32) pax += paxRecord('uname', entry.uname);
  if (Buffer.byteLength(entry.gname) > 32) pax += paxRecord('gname', entry.gname);
  const header = ustarBlock({ ...entry, name }, flag, fields);
  if (pax === '') return [header];
  const records = Buffer.from(pax, 'utf8');
  const paxEntry: TarEntry = {
    name: 'PaxHeader',
    type: null,
    flag: 'x',
    mode: 0o644,
    uid: 0,
    gid: 0,
    size: records.length,
    mtime: entry.mtime,
    linkname: null,
    uname: '',
    gname: '',
  };
  return [
    ustarBlock(paxEntry, 'x', { prefix: '', name: 'PaxHeader' }),
    records,
    Buffer.alloc(paddingOf(records.length)),
    header,
  ];
}

/** The end of an archive: two zero blocks. */
export function endOfArchive(): Buffer {
  return Buffer.alloc(2 * BLOCK);
}
