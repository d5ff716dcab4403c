import { Readable } from 'node:stream';
import { ChunkReader } from './chunk-reader.js';
import {
  BLOCK,
  decodeHeader,
  decodePax,
  encodeHeader,
  endOfArchive,
  paddingOf,
  type TarEntry,
} from './header.js';

/** What a rewrite does with an entry: the entry to write instead (same size), or undefined to leave it out. */
export type RenameEntry = (entry: TarEntry) => TarEntry | undefined;

/** The largest pax header or GNU long name read: far above any real name, far below a memory problem. */
const MAX_META_BYTES = 1 << 20;

/** Kinds whose header is all there is: an extractor (Go's archive/tar, as Docker's) reads no data after them. */
const HEADER_ONLY = new Set(['link', 'symlink', 'character-device', 'block-device', 'directory', 'fifo']);

const ZEROS = Buffer.alloc(BLOCK);

function truncated(): Error {
  return new Error('the archive ends in the middle of an entry');
}

/**
 * The entries of the tar `input`, each passed through `rename`, as the blocks of a new archive
 * (without its end): headers written anew (ustar, pax where needed; other pax records and GNU
 * extensions left out), data passed on as views of the incoming chunks. It reads ustar, pax and GNU
 * archives; global pax headers are skipped (Docker ignores them too); sparse files are refused.
 * Much cheaper than an extract → pack through tar-stream, which costs a stream and callbacks per
 * entry: a cache holds tens of thousands.
 */
export async function* rewriteTar(
  input: AsyncIterable<Buffer | Uint8Array | string>,
  rename: RenameEntry,
): AsyncGenerator<Buffer> {
  const reader = new ChunkReader(input);
  try {
    yield* entriesOf(reader, rename);
  } finally {
    await reader.close();
  }
}

async function* entriesOf(reader: ChunkReader, rename: RenameEntry): AsyncGenerator<Buffer> {
  let pax: Map<string, string> | undefined;
  let longName: string | undefined;
  let longLink: string | undefined;
  for (;;) {
    const got = await reader.take(BLOCK);
    if (!('bytes' in got)) {
      if (got.partial) throw truncated();
      return;
    }
    const header = decodeHeader(got.bytes);
    if (header === undefined) {
      // The end: the second zero block and the record's padding are read and dropped.
      await reader.drain();
      return;
    }
    if (header.flag === 'x' || header.flag === 'g' || header.flag === 'L' || header.flag === 'K') {
      const data = await metadata(reader, header);
      if (header.flag === 'x') pax = decodePax(data);
      else if (header.flag === 'L') longName = nulTerminated(data);
      else if (header.flag === 'K') longLink = nulTerminated(data);
      continue;
    }
    const entry = applyExtensions(header, pax, longName, longLink);
    pax = undefined;
    longName = undefined;
    longLink = undefined;
    const dataSize = entry.type !== null && HEADER_ONLY.has(entry.type) ? 0 : entry.size;
    const renamed = rename({ ...entry, size: dataSize });
    if (renamed === undefined) {
      await reader.skip(dataSize + paddingOf(dataSize), truncated);
      continue;
    }
    yield* encodeHeader({ ...renamed, size: dataSize });
    yield* reader.slices(dataSize, truncated);
    const padding = paddingOf(dataSize);
    await reader.skip(padding, truncated);
    if (padding > 0) yield ZEROS.subarray(0, padding);
  }
}

/**
 * The blocks of `archives` (from rewriteTar) as one archive, its end written once after them, as a
 * byte stream in pieces of 256 KiB. Destroying it stops the rewrite and lets its input go.
 */
export function archiveStream(
  archives: AsyncIterable<AsyncIterable<Buffer>> | Iterable<AsyncIterable<Buffer>>,
): Readable {
  // Not a stream of objects: pipes and sockets count its bytes.
  return Readable.from(coalesced(concatenated(archives)), { objectMode: false, highWaterMark: 1 << 20 });
}

/** The blocks of `archives` (from rewriteTar) as one archive, its end written once after them. */
export async function* concatenated(
  archives: AsyncIterable<AsyncIterable<Buffer>> | Iterable<AsyncIterable<Buffer>>,
): AsyncGenerator<Buffer> {
  for await (const blocks of archives) yield* blocks;
  yield endOfArchive();
}

/**
 * `pieces` joined into buffers of at least `size` bytes (the last may be shorter): a socket or a
 * compressor costs per write, and a tar of small files comes in pieces of 512 bytes. A piece as
 * large as `size` goes on as it is, after what was held: copying it would only cost.
 */
export async function* coalesced(pieces: AsyncIterable<Buffer>, size = 256 * 1024): AsyncGenerator<Buffer> {
  let held: Buffer[] = [];
  let bytes = 0;
  const flush = (): Buffer => {
    const joined = held.length === 1 ? (held[0] as Buffer) : Buffer.concat(held, bytes);
    held = [];
    bytes = 0;
    return joined;
  };
  for await (const piece of pieces) {
    if (piece.length >= size) {
      if (bytes > 0) yield flush();
      yield piece;
      continue;
    }
    held.push(piece);
    bytes += piece.length;
    if (bytes >= size) yield flush();
  }
  if (bytes > 0) yield flush();
}

async function metadata(reader: ChunkReader, header: TarEntry): Promise<Buffer> {
  if (header.size > MAX_META_BYTES)
    throw new Error(`a tar extension header of ${header.size} bytes: more than ${MAX_META_BYTES} is refused`);
  const got = await reader.take(header.size);
  if (!('bytes' in got)) throw truncated();
  // Copied: the view would pin the chunk it came from.
  const data = Buffer.from(got.bytes);
  await reader.skip(paddingOf(header.size), truncated);
  return data;
}

function nulTerminated(data: Buffer): string {
  const end = data.indexOf(0);
  return data.subarray(0, end < 0 ? data.length : end).toString('utf8');
}

/** The header as the extensions before it say (pax records first, then GNU long names). */
function applyExtensions(
  header: TarEntry,
  pax: Map<string, string> | undefined,
  longName: string | undefined,
  longLink: string | undefined,
): TarEntry {
  if (header.flag === 'S' || [...(pax?.keys() ?? [])].some((key) => key.startsWith('GNU.sparse.')))
    throw new Error(`"${header.name.slice(0, 200)}" is a sparse file, which svc does not read`);
  const entry = { ...header };
  if (longName !== undefined) entry.name = longName;
  if (longLink !== undefined) entry.linkname = longLink;
  if (pax === undefined) return entry;
  const path = pax.get('path');
  const linkpath = pax.get('linkpath');
  if (path !== undefined) entry.name = path;
  if (linkpath !== undefined) entry.linkname = linkpath;
  entry.size = paxNumber(pax, 'size') ?? entry.size;
  entry.uid = paxNumber(pax, 'uid') ?? entry.uid;
  entry.gid = paxNumber(pax, 'gid') ?? entry.gid;
  entry.mtime = paxNumber(pax, 'mtime') ?? entry.mtime;
  entry.uname = pax.get('uname') ?? entry.uname;
  entry.gname = pax.get('gname') ?? entry.gname;
  // A pax path to a folder may lack the trailing slash that marks old archives' folders.
  if (entry.type === 'file' && entry.flag === '\0' && entry.name.endsWith('/')) entry.type = 'directory';
  return entry;
}

function paxNumber(pax: Map<string, string>, key: string): number | undefined {
  const value = pax.get(key);
  if (value === undefined) return undefined;
  // mtime may have a fraction; the others are whole.
  const number = key === 'mtime' ? Math.floor(Number(value)) : Number(value);
  if (!Number.isSafeInteger(number) || number < 0 || !/^\d+(\.\d+)?$/.test(value))
    throw new Error(`a malformed pax ${key} "${value.slice(0, 40)}" in the archive`);
  return number;
}
