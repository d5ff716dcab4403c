import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeHeader, type TarEntry } from './header.js';
import { coalesced, concatenated, rewriteTar } from './rewrite.js';

const work = mkdtempSync(join(tmpdir(), 'svc-tar-rewrite-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const LONG = `${'segment-of-a-long-name/'.repeat(12)}file-at-the-end.txt`;
const BIG = Buffer.alloc(1_000_003, 7).map((_, i) => (i * 2654435761) >>> 24);

/** A folder with what real caches hold: long and non-ASCII names, links of both kinds, odd sizes, modes. */
function sourceTree(): string {
  const root = join(work, 'source', 'deps');
  mkdirSync(join(root, 'bin'), { recursive: true });
  mkdirSync(join(root, LONG, '..'), { recursive: true });
  writeFileSync(join(root, LONG), 'long');
  writeFileSync(join(root, 'empty'), '');
  writeFileSync(join(root, 'block'), Buffer.alloc(512, 0x61));
  writeFileSync(join(root, 'big.bin'), BIG);
  writeFileSync(join(root, 'naïve-ünïcode.js'), 'ü');
  writeFileSync(join(root, 'bin', 'tool'), '#!/bin/sh\n');
  chmodSync(join(root, 'bin', 'tool'), 0o755);
  symlinkSync('../big.bin', join(root, 'bin', 'relative-link'));
  symlinkSync(`../${LONG}`, join(root, 'bin', 'long-link'));
  linkSync(join(root, 'empty'), join(root, 'hard'));
  return root;
}

/** What `dir` holds: each path's kind, mode, content or target. */
function treeOf(dir: string): Record<string, string> {
  const found: Record<string, string> = {};
  const walk = (at: string): void => {
    for (const name of readdirSync(at).sort()) {
      const path = join(at, name);
      const stat = lstatSync(path);
      const key = relative(dir, path);
      if (stat.isSymbolicLink()) found[key] = `link ${readlinkSync(path)}`;
      else if (stat.isDirectory()) {
        found[key] = `dir ${(stat.mode & 0o777).toString(8)}`;
        walk(path);
      } else found[key] = `file ${(stat.mode & 0o777).toString(8)} ${readFileSync(path).toString('base64')}`;
    }
  };
  walk(dir);
  return found;
}

async function bytesOf(blocks: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const block of blocks) parts.push(block);
  return Buffer.concat(parts);
}

/**
 * GNU tar's archive of `deps` in `format`, streamed in small chunks as a socket would. GNU tar
 * exits 2 when the format cannot hold some names (it leaves them out): that archive is used too.
 */
function gnuTar(format: string, extra: string[] = []): Readable {
  const made = spawnSync(
    'tar',
    [`--format=${format}`, ...extra, '-cf', '-', '-C', join(work, 'source'), 'deps'],
    {
      maxBuffer: 64 << 20,
    },
  );
  if (made.status !== 0 && made.status !== 2)
    throw new Error(`tar exited ${String(made.status)}: ${made.stderr.toString()}`);
  const archive = made.stdout;
  return Readable.from(
    (function* () {
      for (let at = 0; at < archive.length; at += 1000) yield archive.subarray(at, at + 1000);
    })(),
  );
}

function extracted(archive: Buffer, name: string): string {
  const into = join(work, name);
  mkdirSync(into, { recursive: true });
  execFileSync('tar', ['-xf', '-', '-C', into], { input: archive });
  return into;
}

sourceTree();
const tree = treeOf(join(work, 'source'));

describe('rewriteTar', () => {
  it.each(['gnu', 'pax', 'ustar', 'v7'])(
    'copies a %s archive entry by entry: GNU tar extracts from the copy what it extracts from the original',
    async (format) => {
      // ustar and v7 cannot hold the long names (nor v7 the non-ASCII one): GNU tar leaves them out.
      const original = await bytesOf(gnuTar(format, ['--warning=none']));
      const copied = await bytesOf(concatenated([rewriteTar(Readable.from([original]), (entry) => entry)]));
      const fromCopy = treeOf(extracted(copied, `copy-${format}`));
      expect(fromCopy).toEqual(treeOf(extracted(original, `original-${format}`)));
      if (format === 'gnu' || format === 'pax') expect(fromCopy).toEqual(tree);
      else expect(Object.keys(fromCopy).length).toBeGreaterThan(5);
    },
  );

  it('renames entries and link targets, and leaves out what the rename drops', async () => {
    const copied = await bytesOf(
      concatenated([
        rewriteTar(gnuTar('gnu'), (entry) =>
          entry.name.includes('naïve')
            ? undefined
            : {
                ...entry,
                name: `w/${entry.name}`,
                linkname:
                  entry.type === 'link' && entry.linkname !== null ? `w/${entry.linkname}` : entry.linkname,
              },
        ),
      ]),
    );
    const into = extracted(copied, 'renamed');
    const expected = { ...tree };
    delete expected['deps/naïve-ünïcode.js'];
    expect(treeOf(join(into, 'w'))).toEqual(expected);
    expect(lstatSync(join(into, 'w/deps/hard')).ino).toBe(lstatSync(join(into, 'w/deps/empty')).ino);
  });

  it('joins several archives into one with a single end', async () => {
    const one = (prefix: string) =>
      rewriteTar(gnuTar('pax'), (entry) => ({
        ...entry,
        name: `${prefix}/${entry.name}`,
        linkname:
          entry.type === 'link' && entry.linkname !== null ? `${prefix}/${entry.linkname}` : entry.linkname,
      }));
    const copied = await bytesOf(concatenated([one('a'), one('b')]));
    const into = extracted(copied, 'joined');
    expect(treeOf(join(into, 'a'))).toEqual(treeOf(join(into, 'b')));
    expect(Object.keys(treeOf(join(into, 'b'))).length).toBe(Object.keys(tree).length);
  });

  it('writes what ustar cannot hold as pax records, which GNU tar reads', () => {
    const name = `${'x'.repeat(300)}/ünïcode`;
    const entry: TarEntry = {
      name,
      type: 'symlink',
      flag: '2',
      mode: 0o777,
      uid: 1 << 22,
      gid: 5,
      size: 0,
      mtime: 1_700_000_000,
      linkname: `target-${'y'.repeat(200)}`,
      uname: 'u'.repeat(40),
      gname: 'g',
    };
    const archive = Buffer.concat([...encodeHeader(entry), Buffer.alloc(1024)]);
    const listing = execFileSync('tar', ['-tvf', '-', '--numeric-owner'], { input: archive }).toString();
    expect(listing).toContain(`${name} -> target-${'y'.repeat(200)}`);
    expect(listing).toContain(`${1 << 22}/5`);
  });

  it('refuses a truncated archive, a corrupt header, a sparse file and an oversized extension header', async () => {
    const whole = await bytesOf(gnuTar('gnu'));
    await expect(bytesOf(rewriteTar(Readable.from([whole.subarray(0, 700)]), (e) => e))).rejects.toThrow(
      'the archive ends in the middle of an entry',
    );
    const corrupt = Buffer.from(whole);
    corrupt[10] = (corrupt[10] ?? 0) ^ 1;
    await expect(bytesOf(rewriteTar(Readable.from([corrupt]), (e) => e))).rejects.toThrow('wrong checksum');

    const sparseDir = join(work, 'sparse');
    mkdirSync(sparseDir, { recursive: true });
    execFileSync('truncate', ['-s', '10M', join(sparseDir, 'holes')]);
    const sparse = execFileSync('tar', ['--format=gnu', '--sparse', '-cf', '-', '-C', sparseDir, 'holes']);
    await expect(bytesOf(rewriteTar(Readable.from([sparse]), (e) => e))).rejects.toThrow('is a sparse file');

    const pax: TarEntry = { ...headerOnly('PaxHeader'), flag: 'x', type: null, size: 2 << 20 };
    const oversized = Buffer.concat([...encodeHeader(pax), Buffer.alloc(2 << 20)]);
    await expect(bytesOf(rewriteTar(Readable.from([oversized]), (e) => e))).rejects.toThrow(
      'more than 1048576 is refused',
    );
  });

  it('hands an unknown kind to the rename as such, and skips global pax headers', async () => {
    const global: TarEntry = { ...headerOnly('pax_global_header'), flag: 'g', type: null, size: 0 };
    const volume: TarEntry = { ...headerOnly('label'), flag: 'V', type: null };
    const seen: string[] = [];
    await bytesOf(
      rewriteTar(
        Readable.from([
          Buffer.concat([...encodeHeader(global), ...encodeHeader(volume), Buffer.alloc(1024)]),
        ]),
        (entry) => {
          seen.push(`${entry.name} ${String(entry.type)} ${entry.flag}`);
          return undefined;
        },
      ),
    );
    expect(seen).toEqual(['label null V']);
  });
});

describe('coalesced', () => {
  it('joins small pieces into buffers of at least the size asked, the last one shorter', async () => {
    const pieces = Array.from({ length: 1000 }, (_, i) => Buffer.alloc(512, i % 256));
    const joined: Buffer[] = [];
    for await (const piece of coalesced(Readable.from(pieces), 64 * 1024)) joined.push(piece);
    expect(joined.slice(0, -1).every((piece) => piece.length >= 64 * 1024)).toBe(true);
    expect(Buffer.concat(joined).equals(Buffer.concat(pieces))).toBe(true);
  });

  it('passes a large piece on as it is, after what it held', async () => {
    const large = Buffer.alloc(100_000, 1);
    const joined: Buffer[] = [];
    for await (const piece of coalesced(
      Readable.from([Buffer.from('ab'), large, Buffer.from('c')]),
      64 * 1024,
    ))
      joined.push(piece);
    expect(joined.map((piece) => piece.length)).toEqual([2, 100_000, 1]);
    expect(joined[1]).toBe(large);
  });
});

function headerOnly(name: string): TarEntry {
  return {
    name,
    type: 'file',
    flag: '0',
    mode: 0o644,
    uid: 0,
    gid: 0,
    size: 0,
    mtime: 0,
    linkname: null,
    uname: '',
    gname: '',
  };
}
