import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { chmod, lstat, mkdir, readFile, readlink, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCentralDirectory } from './central-directory.js';
import { entryStream } from './entry-stream.js';
import {
  hasJava,
  javaStreamRead,
  pythonRead,
  readZip,
  run,
  tarOf,
  temporaryFolder,
  writeZip,
  type TarEntry,
} from './fixtures.case.js';
import { tarToZip } from './tar-to-zip.js';
import { zipBlobOfFile } from './zip-blob.js';

/** The zips svc writes, checked by Info-ZIP's unzip and Python's zipfile; zips by Info-ZIP's zip, read by svc. */

const UTF8_NAME = 'docs/ünïcødé ☃ 名前.txt';
const ENTRIES: TarEntry[] = [
  { name: 'bin/', type: 'directory' },
  { name: 'bin/run.sh', content: '#!/bin/sh\necho hi\n', mode: 0o755 },
  { name: 'bin/latest', type: 'symlink', linkname: 'run.sh' },
  { name: 'empty.txt', content: '' },
  { name: 'empty-folder/', type: 'directory', mode: 0o700 },
  { name: UTF8_NAME, content: 'snow\n'.repeat(100) },
];

const java = await hasJava();

let folder: { path: string; remove: () => Promise<void> };
beforeAll(async () => {
  folder = await temporaryFolder();
});
afterAll(async () => folder.remove());

describe('zips svc writes, as other tools see them', () => {
  it('pass `unzip -t` and Python’s zipfile, with modes, links, UTF-8 names, empty files and folders', async () => {
    const zip = join(folder.path, 'tools.zip');
    await writeZip(tarOf(ENTRIES), zip);

    const tested = await run('unzip', ['-t', zip]);
    expect(tested.stderr).toBe('');
    expect(tested.stdout).toContain('No errors detected');
    expect(tested.code).toBe(0);

    const python = await pythonRead(zip);
    expect(python.bad).toBeNull();
    expect(python.entries.map(({ name, mode, size, method }) => ({ name, mode, size, method }))).toEqual([
      { name: 'bin/', mode: 0o40755, size: 0, method: 0 },
      { name: 'bin/run.sh', mode: 0o100755, size: 18, method: 8 },
      { name: 'bin/latest', mode: 0o120777, size: 6, method: 0 },
      { name: 'empty.txt', mode: 0o100644, size: 0, method: 0 },
      { name: 'empty-folder/', mode: 0o40700, size: 0, method: 0 },
      { name: UTF8_NAME, mode: 0o100644, size: 500, method: 8 },
    ]);
    expect(python.entries[0]?.date).toEqual([2024, 5, 6, 7, 8, 10]);
  });

  it.skipIf(!java)(
    'read front to back by a streaming reader (Java’s ZipInputStream: local headers, data descriptors)',
    async () => {
      const zip = join(folder.path, 'streaming.zip');
      await writeZip(tarOf(ENTRIES), zip);
      expect(await javaStreamRead(zip, folder.path)).toEqual([
        'bin/\t0',
        'bin/run.sh\t18',
        'bin/latest\t6',
        'empty.txt\t0',
        'empty-folder/\t0',
        `${UTF8_NAME}\t500`,
      ]);
    },
    60_000,
  );

  it('extract with `unzip` as they were: a symbolic link as a link, mode 755, the UTF-8 name, the empty folder', async () => {
    const zip = join(folder.path, 'extract.zip');
    const out = join(folder.path, 'extracted');
    await writeZip(tarOf(ENTRIES), zip);
    const extracted = await run('unzip', ['-q', zip, '-d', out]);
    expect(extracted.stderr).toBe('');
    expect(extracted.code).toBe(0);

    expect((await lstat(join(out, 'bin/latest'))).isSymbolicLink()).toBe(true);
    expect(await readlink(join(out, 'bin/latest'))).toBe('run.sh');
    expect((await lstat(join(out, 'bin/run.sh'))).mode & 0o777).toBe(0o755);
    expect(await readFile(join(out, UTF8_NAME), 'utf8')).toBe('snow\n'.repeat(100));
    expect((await lstat(join(out, 'empty.txt'))).size).toBe(0);
    const empty = await lstat(join(out, 'empty-folder'));
    expect(empty.isDirectory()).toBe(true);
    expect(empty.mode & 0o777).toBe(0o700);
    // The extended timestamp gives unzip the exact second, not DOS time's 2-second steps.
    expect((await lstat(join(out, 'bin/run.sh'))).mtime).toEqual(new Date('2024-05-06T07:08:10Z'));
  });

  it('turn a folder tarred by GNU tar into the same folder once unzipped', async () => {
    const source = join(folder.path, 'gnu-source');
    await mkdir(join(source, 'a/b/empty'), { recursive: true });
    await writeFile(join(source, 'a/b/tool'), 'tool');
    await chmod(join(source, 'a/b/tool'), 0o755);
    await writeFile(join(source, 'a/ü.txt'), 'ü');
    await symlink('b/tool', join(source, 'a/tool-link'));
    const tar = spawn('tar', ['-C', source, '-cf', '-', '.']);
    const zip = join(folder.path, 'gnu.zip');
    const summary = await writeZip(tar.stdout, zip);
    expect(summary.entries).toBe(6); // a/, a/b/, a/b/empty/, a/b/tool, a/ü.txt, a/tool-link; no ./

    const out = join(folder.path, 'gnu-out');
    expect((await run('unzip', ['-q', zip, '-d', out])).code).toBe(0);
    const listing = async (root: string) =>
      (await run('find', ['.', '-printf', '%p %y %m %l %s\\n'], { cwd: root })).stdout
        .split('\n')
        .filter((line) => !line.startsWith('. ') && line !== '')
        .map((line) => line.replace(/ d (\d+) (\S*) \d+$/, ' d $1 $2 -')) // folder sizes differ
        .sort();
    expect(await listing(out)).toEqual(await listing(source));
  });

  it('stream a 50 MB file with flat memory, and read it back whole', async () => {
    const size = 50 * 1024 * 1024;
    const chunk = 64 * 1024;
    const written = createHash('sha256');
    let generated = 0;
    let zipped = 0;
    let mostInFlight = 0;
    const data = Readable.from(
      (function* () {
        for (; generated < size;) {
          const bytes = randomBytes(chunk);
          written.update(bytes);
          generated += bytes.length;
          mostInFlight = Math.max(mostInFlight, generated - zipped);
          yield bytes;
        }
      })(),
    );
    const { zip, done } = tarToZip(tarOf([{ name: 'large.bin', stream: { size, data: () => data } }]));
    zip.on('data', (bytes: Buffer) => (zipped += bytes.length));
    const path = join(folder.path, 'large.zip');
    await pipeline(zip, createWriteStream(path));
    expect(await done).toMatchObject({ entries: 1, bytes: size });
    // Random data does not deflate: what went in and did not come out yet is what the pipeline holds.
    expect(mostInFlight).toBeLessThan(4 * 1024 * 1024);

    expect((await run('unzip', ['-tq', path])).code).toBe(0);
    expect((await pythonRead(path)).bad).toBeNull();
    const blob = await zipBlobOfFile(path);
    const [entry] = await readCentralDirectory(blob);
    if (entry === undefined) throw new Error('no entry');
    const read = createHash('sha256');
    for await (const bytes of await entryStream(blob, entry)) read.update(bytes as Buffer);
    expect(read.digest('hex')).toBe(written.digest('hex'));
  }, 120_000);
});

describe('zips Info-ZIP’s zip writes, read by svc', () => {
  let source: string;
  beforeAll(async () => {
    source = join(folder.path, 'zip-source');
    await mkdir(join(source, 'sub/empty'), { recursive: true });
    await writeFile(join(source, 'sub/text.txt'), 'text '.repeat(1000));
    await writeFile(join(source, 'run.sh'), '#!/bin/sh\n');
    await chmod(join(source, 'run.sh'), 0o755);
    await writeFile(join(source, 'empty'), '');
    await symlink('sub/text.txt', join(source, 'link'));
  });

  const expectSource = async (zip: string) => {
    const read = await readZip(await zipBlobOfFile(zip));
    expect(read.get('sub/text.txt')?.data.toString()).toBe('text '.repeat(1000));
    expect(read.get('sub/text.txt')?.entry.method).toBe(8);
    expect(read.get('run.sh')?.entry.mode).toBe(0o755);
    expect(read.get('empty')?.data.length).toBe(0);
    expect(read.get('sub/empty/')?.entry.isDirectory).toBe(true);
    expect(read.get('link')?.entry.isSymlink).toBe(true);
    expect(read.get('link')?.data.toString()).toBe('sub/text.txt');
    return read;
  };

  it('reads `zip -ry`', async () => {
    const zip = join(folder.path, 'info-zip.zip');
    expect((await run('zip', ['-qry', zip, '.'], { cwd: source })).code).toBe(0);
    await expectSource(zip);
  });

  it('reads `zip -fz` (ZIP64 records)', async () => {
    const zip = join(folder.path, 'info-zip64.zip');
    expect((await run('zip', ['-fz', '-qry', zip, '.'], { cwd: source })).code).toBe(0);
    await expectSource(zip);
  });

  it('reads zip streamed to a pipe (data descriptors)', async () => {
    const zip = join(folder.path, 'info-zip-streamed.zip');
    const piped = await run('sh', ['-c', `zip -q - sub/text.txt run.sh empty | cat > '${zip}'`], {
      cwd: source,
    });
    expect(piped.code).toBe(0);
    const read = await readZip(await zipBlobOfFile(zip));
    expect([...read.keys()]).toEqual(['sub/text.txt', 'run.sh', 'empty']);
    expect(read.get('sub/text.txt')?.data.toString()).toBe('text '.repeat(1000));
    expect((read.get('sub/text.txt')?.entry.flags ?? 0) & 8).toBe(8);
    expect(read.get('run.sh')?.entry.mode).toBe(0o755);
  });
});
