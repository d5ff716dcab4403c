import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCentralDirectory } from './central-directory.js';
import { entryStream } from './entry-stream.js';
import { SIGNATURE } from './format.js';
import {
  pythonRead,
  readZip,
  readZipBytes,
  run,
  tarOf,
  temporaryFolder,
  writeZip,
  zipOf,
} from './fixtures.case.js';
import { zipBlobOfFile } from './zip-blob.js';

/**
 * ZIP64: sizes and offsets of 4 GiB or more, 65535 entries or more. Lowered thresholds make small
 * zips with every ZIP64 record; 70,000 entries are real; a real 4 GiB file runs only with
 * SVC_TEST_ZIP_HUGE=1 (about a minute and a half on two cores, most of it in unzip and Python).
 */

let folder: { path: string; remove: () => Promise<void> };
beforeAll(async () => {
  folder = await temporaryFolder();
});
afterAll(async () => folder.remove());

const hasSignature = (bytes: Buffer, signature: number) => {
  const wanted = Buffer.alloc(4);
  wanted.writeUInt32LE(signature);
  return bytes.includes(wanted);
};

describe('ZIP64 records', () => {
  it('are written past lowered thresholds, and unzip, Python and the reader accept them', async () => {
    // Random text deflates little: the entries after it start past the lowered offset threshold.
    const large = randomBytes(3000).toString('base64');
    const entries = [
      { name: 'large.txt', content: large }, // local ZIP64 field, 8-byte data descriptor, ZIP64 sizes
      { name: 'dir/', type: 'directory' as const }, // offset in ZIP64
      { name: 'dir/small.txt', content: 'small' },
      { name: 'dir/link', type: 'symlink' as const, linkname: 'small.txt' },
      { name: 'empty', content: '' },
    ];
    const zip64Thresholds = { bytes: 1000, entries: 3 };
    const path = join(folder.path, 'lowered.zip');
    await writeZip(tarOf(entries), path, { zip64Thresholds });
    const { bytes } = await zipOf(tarOf(entries), { zip64Thresholds });
    expect(hasSignature(bytes, SIGNATURE.zip64End)).toBe(true);
    expect(hasSignature(bytes, SIGNATURE.zip64Locator)).toBe(true);
    expect(bytes.readUInt16LE(bytes.length - 12)).toBe(0xffff); // the end record's entry count

    const tested = await run('unzip', ['-t', path]);
    expect(tested.stdout).toContain('No errors detected');
    expect(tested.code).toBe(0);
    const python = await pythonRead(path);
    expect(python.bad).toBeNull();
    expect(python.entries.map(({ name, size, zip64 }) => ({ name, size, zip64 }))).toEqual([
      { name: 'large.txt', size: large.length, zip64: true },
      { name: 'dir/', size: 0, zip64: true },
      { name: 'dir/small.txt', size: 5, zip64: true },
      { name: 'dir/link', size: 9, zip64: true },
      { name: 'empty', size: 0, zip64: true },
    ]);

    const read = await readZipBytes(bytes);
    expect(read.get('large.txt')?.data.toString()).toBe(large);
    expect(read.get('dir/small.txt')?.data.toString()).toBe('small');
    expect(read.get('dir/link')?.entry.isSymlink).toBe(true);
    expect(read.get('empty')?.entry.localHeaderOffset).toBeGreaterThan(1000);
  });

  it('hold 70,000 entries (more than 65535), read by unzip, Python and the reader', async () => {
    const names = Array.from({ length: 70_000 }, (_, index) => `d${index % 100}/f${index}`);
    const path = join(folder.path, 'many.zip');
    const summary = await writeZip(tarOf(names.map((name) => ({ name, content: '' }))), path);
    expect(summary.entries).toBe(70_000);

    const tested = await run('unzip', ['-tq', path]);
    expect(tested.stdout).toContain('No errors detected');
    const python = await pythonRead(path);
    expect(python.entries).toHaveLength(70_000);
    const entries = await readCentralDirectory(await zipBlobOfFile(path));
    expect(entries.map((entry) => entry.name)).toEqual(names);
  }, 120_000);

  it.skipIf(process.env.SVC_TEST_ZIP_HUGE !== '1')(
    'hold a real file over 4 GiB',
    async () => {
      const size = 2 ** 32 + 2 ** 20;
      const zeros = Buffer.alloc(1 << 20);
      const data = () =>
        Readable.from(
          (function* () {
            for (let at = 0; at < size; at += zeros.length) yield zeros;
          })(),
        );
      const path = join(folder.path, 'huge.zip');
      const summary = await writeZip(
        tarOf([
          { name: 'huge.bin', stream: { size, data } },
          { name: 'after', content: 'after' },
        ]),
        path,
      );
      expect(summary.bytes).toBe(size + 5);

      expect((await run('unzip', ['-tq', path])).stdout).toContain('No errors detected');
      const python = await pythonRead(path);
      expect(python.bad).toBeNull();
      expect(python.entries[0]).toMatchObject({ size, zip64: true });
      const blob = await zipBlobOfFile(path);
      const [huge, after] = await readCentralDirectory(blob);
      expect(huge).toMatchObject({ name: 'huge.bin', size });
      if (huge === undefined || after === undefined) throw new Error('entries missing');
      const hash = createHash('sha256');
      let read = 0;
      for await (const chunk of await entryStream(blob, huge)) {
        read += (chunk as Buffer).length;
        hash.update(chunk as Buffer);
      }
      expect(read).toBe(size);
      expect((await readZip(blob)).get('after')?.data.toString()).toBe('after');
    },
    600_000,
  );
});
