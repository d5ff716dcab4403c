import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../core/errors.js';
import { UnsafeEntryError } from './errors.js';
import { ZIP_LIMITS } from './format.js';
import { MTIME, readZipBytes, tarOf, zipOf, type TarEntry } from './fixtures.case.js';
import { tarToZip } from './tar-to-zip.js';

describe('tarToZip, read back by readCentralDirectory and entryStream', () => {
  it('keeps every file, folder and symbolic link with its data, mode and time, in order', async () => {
    const text = 'hello, zip\n'.repeat(1000);
    const { bytes, summary } = await zipOf(
      tarOf([
        { name: './', type: 'directory' },
        { name: './bin/', type: 'directory', mode: 0o750 },
        { name: './bin/run.sh', content: '#!/bin/sh\necho hi\n', mode: 0o755 },
        { name: './bin/latest', type: 'symlink', linkname: 'run.sh' },
        { name: './empty.txt', content: '' },
        { name: './empty-folder/', type: 'directory' },
        { name: './notes/ünïcødé ☃ 名前.txt', content: text },
        { name: './setuid', content: 'x', mode: 0o4755 },
      ]),
    );
    const read = await readZipBytes(bytes);
    expect([...read.keys()]).toEqual([
      'bin/',
      'bin/run.sh',
      'bin/latest',
      'empty.txt',
      'empty-folder/',
      'notes/ünïcødé ☃ 名前.txt',
      'setuid',
    ]);
    expect(read.get('bin/')?.entry).toMatchObject({
      isDirectory: true,
      isSymlink: false,
      mode: 0o750,
      size: 0,
    });
    expect(read.get('bin/run.sh')?.entry).toMatchObject({ mode: 0o755, method: 8, isDirectory: false });
    expect(read.get('bin/run.sh')?.data.toString()).toBe('#!/bin/sh\necho hi\n');
    expect(read.get('bin/latest')?.entry).toMatchObject({ isSymlink: true, method: 0, mode: 0o777 });
    expect(read.get('bin/latest')?.data.toString()).toBe('run.sh');
    expect(read.get('empty.txt')?.entry).toMatchObject({ size: 0, compressedSize: 0, method: 0 });
    expect(read.get('empty-folder/')?.entry.isDirectory).toBe(true);
    const notes = read.get('notes/ünïcødé ☃ 名前.txt');
    expect(notes?.data.toString()).toBe(text);
    expect(notes?.entry.compressedSize).toBeLessThan(text.length / 10);
    expect(notes?.entry.modified).toEqual(MTIME);
    expect(read.get('setuid')?.entry.mode).toBe(0o755);
    expect(summary).toEqual({
      entries: 7,
      bytes: 18 + 'run.sh'.length + text.length + 1,
      zipBytes: bytes.length,
    });
  });

  it('makes a valid empty zip of an empty tar', async () => {
    const { bytes, summary } = await zipOf(tarOf([]));
    expect(summary).toEqual({ entries: 0, bytes: 0, zipBytes: 22 });
    expect((await readZipBytes(bytes)).size).toBe(0);
  });

  it('makes a hard link a relative symbolic link to its first name', async () => {
    const { bytes } = await zipOf(
      tarOf([
        { name: 'a/data.txt', content: 'data' },
        { name: 'b/c/same.txt', type: 'link', linkname: 'a/data.txt' },
      ]),
    );
    const link = (await readZipBytes(bytes)).get('b/c/same.txt');
    expect(link?.entry.isSymlink).toBe(true);
    expect(link?.data.toString()).toBe('../../a/data.txt');
  });

  it('keeps a folder named twice once (several paths packed in one tar)', async () => {
    const { bytes } = await zipOf(
      tarOf([
        { name: 'dist/', type: 'directory' },
        { name: 'dist/a', content: 'a' },
        { name: 'dist/', type: 'directory' },
        { name: 'dist/b', content: 'b' },
      ]),
    );
    expect([...(await readZipBytes(bytes)).keys()]).toEqual(['dist/', 'dist/a', 'dist/b']);
  });
});

describe('tarToZip refuses what an extractor could misuse', () => {
  const long = `${'d/'.repeat(2048)}f`; // 4097 bytes
  const refused: [string, TarEntry[], RegExp][] = [
    [
      'a .. segment',
      [{ name: 'a/../../etc/passwd', content: 'x' }],
      /"a\/..\/..\/etc\/passwd" has a \.\. segment/,
    ],
    ['a .. segment with backslashes', [{ name: 'a\\..\\..\\x', content: 'x' }], /has a \.\. segment/],
    ['an absolute name', [{ name: '/etc/passwd', content: 'x' }], /"\/etc\/passwd" has an absolute name/],
    ['a drive letter', [{ name: 'C:/Windows/x', content: 'x' }], /has an absolute name/],
    ['a . segment inside', [{ name: 'a/./b', content: 'x' }], /has an empty or \. segment/],
    ['an empty segment', [{ name: 'a//b', content: 'x' }], /has an empty or \. segment/],
    [
      'a character device',
      [{ name: 'dev/null', type: 'character-device' }],
      /"dev\/null" is a character-device/,
    ],
    ['a block device', [{ name: 'sda', type: 'block-device' }], /"sda" is a block-device/],
    ['a FIFO', [{ name: 'pipe', type: 'fifo' }], /"pipe" is a fifo/],
    ['a name over 4096 bytes', [{ name: long, content: 'x' }], /has a name of 4097 bytes, over 4096/],
    [
      'a link target over 4096 bytes',
      [{ name: 'l', type: 'symlink', linkname: long }],
      /link target of 4097 bytes/,
    ],
    ['a symbolic link to nothing', [{ name: 'l', type: 'symlink', linkname: '' }], /is a link to nothing/],
    [
      'an entry under a symbolic link of the archive',
      [
        { name: 'etc', type: 'symlink', linkname: '/etc' },
        { name: 'etc/cron.d/x', content: 'x' },
      ],
      /"etc\/cron.d\/x" lies under a symbolic link of the archive/,
    ],
    [
      'an entry replacing a symbolic link of the archive',
      [
        { name: 'passwd', type: 'symlink', linkname: '/etc/passwd' },
        { name: 'passwd', content: 'root::0:0::/:/bin/sh' },
      ],
      /"passwd" replaces a symbolic link of the archive/,
    ],
    [
      'a hard link out of the archive',
      [{ name: 'h', type: 'link', linkname: '../../etc/shadow' }],
      /has a \.\. segment/,
    ],
  ];

  it.each(refused)(
    'refuses %s, failing the zip and `done` with the entry named',
    async (_, entries, message) => {
      const { zip, done } = tarToZip(tarOf([{ name: 'first.txt', content: 'fine' }, ...entries]));
      const reading = (async () => {
        for await (const _chunk of zip) {
          // drained
        }
      })();
      await expect(reading).rejects.toThrow(message);
      const error = await done.catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(UnsafeEntryError);
      expect((error as UnsafeEntryError).code).toBe('INVALID_INPUT');
      expect((error as UnsafeEntryError).message).toMatch(message);
    },
  );

  it('refuses more entries than the limit, and a central directory over its limit', async () => {
    const many = Array.from({ length: 5 }, (_, index) => ({ name: `f${index}`, content: '' }));
    const limits = { ...ZIP_LIMITS, maxEntries: 4 };
    await expect(zipOf(tarOf(many), { limits })).rejects.toThrow(/more than 4 entries/);
    const small = { ...ZIP_LIMITS, maxCentralDirectoryBytes: 200 };
    const refusal = zipOf(tarOf(many), { limits: small });
    await expect(refusal).rejects.toBeInstanceOf(InvalidInputError);
    await expect(refusal).rejects.toThrow(/file index would be over 200 bytes/);
  });

  it('fails when the tar is cut short', async () => {
    const whole = await Readable.from(tarOf([{ name: 'f', content: 'x'.repeat(5000) }])).toArray();
    const cut = Buffer.concat(whole as Buffer[]).subarray(0, 2048);
    await expect(zipOf(Readable.from([cut]))).rejects.toThrow();
  });

  it('rejects `done` and destroys the tar when the zip is closed before it is whole', async () => {
    const data = Readable.from(
      (function* () {
        for (let index = 0; index < 1000; index += 1) yield Buffer.alloc(64 * 1024, index);
      })(),
    );
    const input = tarOf([{ name: 'big', stream: { size: 1000 * 64 * 1024, data: () => data } }]);
    const { zip, done } = tarToZip(input);
    for await (const _chunk of zip) break; // destroys `zip`
    await expect(done).rejects.toThrow(/closed before it was whole/);
    await new Promise((resolve) => setImmediate(resolve));
    expect(input.destroyed).toBe(true);
  });
});
