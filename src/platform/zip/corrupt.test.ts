import { Readable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { readCentralDirectory, type ZipEntry } from './central-directory.js';
import { entryStream } from './entry-stream.js';
import { CorruptZipError } from './errors.js';
import { SIGNATURE } from './format.js';
import { bytesOf, tarOf, zipOf } from './fixtures.case.js';
import { zipBlobOfBuffer, type ZipBlob } from './zip-blob.js';

/** Broken zips give a CorruptZipError that says what is wrong — never a crash, never a large read. */

const TEXT = 'corrupt me, '.repeat(500);
let good: Buffer;
let goodZip64: Buffer;
beforeAll(async () => {
  const entries = [
    { name: 'a.txt', content: TEXT },
    { name: 'link', type: 'symlink' as const, linkname: 'a.txt' },
    { name: 'b.txt', content: 'b' },
  ];
  good = (await zipOf(tarOf(entries))).bytes;
  goodZip64 = (await zipOf(tarOf(entries), { zip64Thresholds: { bytes: 100, entries: 2 } })).bytes;
});

/** A copy of `bytes` with `change` applied. */
function patched(bytes: Buffer, change: (copy: Buffer) => void): Buffer {
  const copy = Buffer.from(bytes);
  change(copy);
  return copy;
}

function signatureAt(bytes: Buffer, signature: number, name?: string): number {
  const wanted = Buffer.alloc(4);
  wanted.writeUInt32LE(signature);
  for (let at = bytes.indexOf(wanted); at !== -1; at = bytes.indexOf(wanted, at + 1)) {
    const nameAt = signature === SIGNATURE.central ? 46 : 30;
    if (name === undefined || bytes.toString('utf8', at + nameAt, at + nameAt + name.length) === name)
      return at;
  }
  throw new Error(`no record ${signature.toString(16)} ${name ?? ''}`);
}

const central = (bytes: Buffer, name: string) => signatureAt(bytes, SIGNATURE.central, name);
const endRecord = (bytes: Buffer) => bytes.length - 22;

/** A ZipBlob that remembers its largest range, to show that no claim makes the reader read much. */
function watchedBlob(bytes: Buffer): ZipBlob & { largest: number } {
  const blob = zipBlobOfBuffer(bytes);
  const watched = {
    size: blob.size,
    largest: 0,
    range: (start: number, end: number) => {
      watched.largest = Math.max(watched.largest, end - start);
      return blob.range(start, end);
    },
  };
  return watched;
}

async function entryNamed(blob: ZipBlob, name: string): Promise<ZipEntry> {
  const entry = (await readCentralDirectory(blob)).find((candidate) => candidate.name === name);
  if (entry === undefined) throw new Error(`no entry ${name}`);
  return entry;
}

async function readEntry(bytes: Buffer, name: string): Promise<Buffer> {
  const blob = zipBlobOfBuffer(bytes);
  return bytesOf(await entryStream(blob, await entryNamed(blob, name)));
}

describe('reading a broken zip', () => {
  it('reads the intact zips (the baseline of the cases below)', async () => {
    expect((await readEntry(good, 'a.txt')).toString()).toBe(TEXT);
    expect((await readEntry(goodZip64, 'a.txt')).toString()).toBe(TEXT);
  });

  const directoryCases: [string, () => Buffer, RegExp][] = [
    ['a blob too short for a zip', () => Buffer.from('PK'), /the blob is 2 bytes, too short for a zip/],
    ['bytes that are not a zip', () => Buffer.alloc(5000, 7), /no end of central directory record/],
    [
      'a zip cut in its central directory',
      () => good.subarray(0, central(good, 'b.txt') + 10),
      /no end of central/,
    ],
    [
      'a central directory with bytes missing',
      () => Buffer.concat([good.subarray(0, central(good, 'link')), good.subarray(central(good, 'b.txt'))]),
      /central directory \(\d+ bytes at \d+\) runs past its end record/,
    ],
    [
      'an end record counting more entries than there are',
      () => patched(good, (copy) => copy.writeUInt16LE(4, endRecord(good) + 10)),
      /its 4 entries cannot fit|entry 4 of 4 is missing or broken/,
    ],
    [
      'a central directory claiming 100 MiB',
      () => patched(good, (copy) => copy.writeUInt32LE(100 * 1024 * 1024, endRecord(good) + 12)),
      /central directory is 104857600 bytes, over the limit of 67108864/,
    ],
    [
      'a ZIP64 end record claiming 5 million entries',
      () =>
        patched(goodZip64, (copy) =>
          copy.writeBigUInt64LE(5_000_000n, signatureAt(copy, SIGNATURE.zip64End) + 32),
        ),
      /it has 5000000 entries, over the limit of 1000000/,
    ],
    [
      'a ZIP64 locator pointing beyond any blob',
      () =>
        patched(goodZip64, (copy) =>
          copy.writeBigUInt64LE(2n ** 60n, signatureAt(copy, SIGNATURE.zip64Locator) + 8),
        ),
      /the ZIP64 end record offset is 1152921504606846976, beyond any blob/,
    ],
    [
      'a ZIP64 locator pointing at something else',
      () =>
        patched(goodZip64, (copy) =>
          copy.writeBigUInt64LE(0n, signatureAt(copy, SIGNATURE.zip64Locator) + 8),
        ),
      /no ZIP64 end record at 0, where its locator says/,
    ],
    [
      'an entry claiming 2 GiB from a few deflated bytes',
      () => patched(good, (copy) => copy.writeUInt32LE(2 ** 31, central(good, 'a.txt') + 24)),
      /entry "a.txt" claims 2147483648 bytes from only \d+ deflated/,
    ],
    [
      'an entry claiming more compressed bytes than the blob has',
      () => patched(good, (copy) => copy.writeUInt32LE(2 ** 31, central(good, 'a.txt') + 20)),
      /entry "a.txt" claims 2147483648 bytes at 0, past the central directory/,
    ],
    [
      'a stored entry whose sizes differ',
      () => patched(good, (copy) => copy.writeUInt32LE(99, central(good, 'link') + 24)),
      /entry "link" is stored, yet its size 99 differs from 5/,
    ],
    [
      'a ZIP64 entry without its ZIP64 field',
      () => patched(goodZip64, (copy) => copy.writeUInt16LE(0x9999, central(goodZip64, 'a.txt') + 46 + 5)),
      /entry "a.txt" lacks its ZIP64 size/,
    ],
  ];

  it.each(directoryCases)('refuses %s', async (_, make, message) => {
    const blob = watchedBlob(make());
    const error = await readCentralDirectory(blob).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CorruptZipError);
    expect((error as CorruptZipError).code).toBe('INTERNAL');
    expect((error as CorruptZipError).message).toMatch(message);
    expect(blob.largest).toBeLessThan(70 * 1024);
  });

  const entryCases: [string, () => Buffer, string, RegExp][] = [
    [
      'a wrong CRC in the directory',
      () => patched(good, (copy) => copy.writeUInt32LE(0x12345678, central(good, 'a.txt') + 16)),
      'a.txt',
      /entry "a.txt" fails its CRC check \([0-9a-f]{8} where the directory says 12345678\)/,
    ],
    [
      'a stored byte changed',
      () =>
        patched(good, (copy) => (copy[signatureAt(copy, SIGNATURE.local, 'link') + 30 + 4 + 9 + 1] = 0x41)),
      'link',
      /entry "link" fails its CRC check/,
    ],
    [
      'deflated bytes scrambled',
      () => patched(good, (copy) => copy.fill(0xff, 60, 80)),
      'a.txt',
      /entry "a.txt" (does not inflate|fails its CRC check|has)/,
    ],
    [
      'an entry inflating to more than its size (a zip bomb)',
      () => patched(good, (copy) => copy.writeUInt32LE(100, central(good, 'a.txt') + 24)),
      'a.txt',
      /entry "a.txt" has more than its 100 bytes/,
    ],
    [
      'an entry inflating to less than its size',
      () => patched(good, (copy) => copy.writeUInt32LE(TEXT.length + 1, central(good, 'a.txt') + 24)),
      'a.txt',
      /entry "a.txt" has 6000 bytes where the directory says 6001/,
    ],
    [
      'no local header where the directory says',
      () => patched(good, (copy) => copy.writeUInt32LE(0, signatureAt(copy, SIGNATURE.local, 'b.txt'))),
      'b.txt',
      /entry "b.txt" has no local header at \d+/,
    ],
    [
      'a local header of another name',
      () => patched(good, (copy) => copy.write('c', signatureAt(copy, SIGNATURE.local, 'b.txt') + 30)),
      'b.txt',
      /entry "b.txt" is named "c.txt" in its local header/,
    ],
    [
      'an encrypted entry',
      () => patched(good, (copy) => copy.writeUInt16LE(0x0809, central(good, 'b.txt') + 8)),
      'b.txt',
      /entry "b.txt" is encrypted/,
    ],
    [
      'an unknown compression method',
      () => patched(good, (copy) => copy.writeUInt16LE(12, central(good, 'b.txt') + 10)),
      'b.txt',
      /entry "b.txt" uses compression method 12/,
    ],
  ];

  it.each(entryCases)('fails the entry for %s', async (_, make, name, message) => {
    const error = await readEntry(make(), name).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CorruptZipError);
    expect((error as CorruptZipError).message).toMatch(message);
  });

  it('fails when the storage answers fewer bytes than asked', async () => {
    const whole = zipBlobOfBuffer(good);
    const short: ZipBlob = {
      size: good.length,
      range: (start, end) => Readable.from([good.subarray(start, Math.max(start, end - 1))]),
    };
    const entry = await entryNamed(whole, 'link');
    await expect(readCentralDirectory(short)).rejects.toThrow(
      /the blob ended after \d+ bytes where it should have/,
    );
    await expect(entryStream(short, entry).then(bytesOf)).rejects.toThrow(
      /the blob ended after|has 4 bytes where/,
    );
  });

  it('passes on a storage failure as it is, not as corruption', async () => {
    const failing: ZipBlob = {
      size: good.length,
      range: (start, end) =>
        start === 0
          ? new Readable({
              read() {
                this.destroy(new Error('S3: connection reset'));
              },
            })
          : zipBlobOfBuffer(good).range(start, end),
    };
    const entry = await entryNamed(zipBlobOfBuffer(good), 'a.txt');
    await expect(entryStream(failing, entry)).rejects.toThrow('S3: connection reset');
  });
});
