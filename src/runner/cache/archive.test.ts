import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import * as tar from 'tar-stream';
import { packCache, restoreCache, UnsafeArchiveError } from './archive.js';
import { cachePlaces } from './paths.js';

interface Entry {
  name: string;
  type?: tar.Header['type'];
  content?: string;
  linkname?: string;
  mode?: number;
}

/** A tar of `entries`, as an engine or an attacker would send it. */
function tarOf(entries: Entry[]): Readable {
  const pack = tar.pack();
  for (const entry of entries) {
    const type = entry.type ?? 'file';
    const header = {
      name: entry.name,
      type,
      mode: entry.mode ?? (type === 'directory' ? 0o755 : 0o644),
      ...(entry.linkname === undefined ? {} : { linkname: entry.linkname }),
    };
    if (type === 'file') pack.entry(header, entry.content ?? '');
    else pack.entry(header);
  }
  pack.finalize();
  return Readable.from(pack);
}

async function entriesOf(stream: Readable): Promise<Entry[]> {
  const extract = tar.extract();
  stream.pipe(extract);
  stream.on('error', (error) => extract.destroy(error));
  const found: Entry[] = [];
  for await (const entry of extract) {
    const chunks: Buffer[] = [];
    for await (const chunk of entry) chunks.push(chunk as Buffer);
    const { name, type, linkname, mode } = entry.header;
    found.push({
      name,
      type: type ?? 'file',
      ...(type === 'file' ? { content: Buffer.concat(chunks).toString() } : {}),
      ...(linkname ? { linkname } : {}),
      mode: mode ?? 0,
    });
  }
  return found;
}

const places = cachePlaces(['node_modules', '/root/.npm', 'build/out.txt'], '/drone/src');

async function* parts(list: { index: number; entries: Entry[] }[]) {
  await Promise.resolve();
  for (const { index, entries } of list) {
    const place = places[index];
    if (place === undefined) throw new Error('no place');
    yield { place, tar: tarOf(entries) };
  }
}

describe('cache archives', () => {
  it('names each path apart, and restores files, folders, modes and links where the step has them', async () => {
    const archive = packCache(
      parts([
        {
          index: 0,
          entries: [
            { name: 'node_modules/', type: 'directory' },
            { name: 'node_modules/a.js', content: 'a', mode: 0o755 },
            { name: 'node_modules/.bin/', type: 'directory' },
            { name: 'node_modules/.bin/a', type: 'symlink', linkname: '../a.js' },
            { name: 'node_modules/b.js', type: 'link', linkname: 'node_modules/a.js' },
          ],
        },
        {
          index: 1,
          entries: [
            { name: '.npm/', type: 'directory' },
            { name: '.npm/_cacache', content: 'c' },
          ],
        },
        { index: 2, entries: [{ name: 'out.txt', content: 'o' }] },
      ]),
    );
    const stored = await entriesOf(archive);
    expect(stored.map((e) => [e.name, e.type, e.linkname ?? ''])).toEqual([
      ['w/node_modules', 'directory', ''],
      ['w/node_modules/a.js', 'file', ''],
      ['w/node_modules/.bin', 'directory', ''],
      ['w/node_modules/.bin/a', 'symlink', '../a.js'],
      ['w/node_modules/b.js', 'link', 'w/node_modules/a.js'],
      ['a/root/.npm', 'directory', ''],
      ['a/root/.npm/_cacache', 'file', ''],
      ['w/build/out.txt', 'file', ''],
    ]);

    // Restored where the workspace is another folder: an SSH host's.
    const elsewhere = cachePlaces(['node_modules', '/root/.npm', 'build/out.txt'], '/tmp/svc-run/src');
    const restored = await entriesOf(restoreCache(tarOf(stored), elsewhere));
    expect(restored).toEqual([
      { name: 'tmp/svc-run/src/node_modules', type: 'directory', mode: 0o755 },
      { name: 'tmp/svc-run/src/node_modules/a.js', type: 'file', content: 'a', mode: 0o755 },
      { name: 'tmp/svc-run/src/node_modules/.bin', type: 'directory', mode: 0o755 },
      { name: 'tmp/svc-run/src/node_modules/.bin/a', type: 'symlink', linkname: '../a.js', mode: 0o644 },
      {
        name: 'tmp/svc-run/src/node_modules/b.js',
        type: 'link',
        linkname: 'tmp/svc-run/src/node_modules/a.js',
        mode: 0o644,
      },
      { name: 'root/.npm', type: 'directory', mode: 0o755 },
      { name: 'root/.npm/_cacache', type: 'file', content: 'c', mode: 0o644 },
      { name: 'tmp/svc-run/src/build/out.txt', type: 'file', content: 'o', mode: 0o644 },
    ]);
  });

  it('leaves out paths the step no longer names, and drops setuid and setgid bits', async () => {
    const onlyModules = cachePlaces(['node_modules'], '/drone/src');
    const restored = await entriesOf(
      restoreCache(
        tarOf([
          { name: 'w/node_modules/x', content: 'x', mode: 0o6755 },
          { name: 'a/root/.npm/y', content: 'y' },
          { name: 'w/node_modules_evil/z', content: 'z' },
        ]),
        onlyModules,
      ),
    );
    expect(restored).toEqual([{ name: 'drone/src/node_modules/x', type: 'file', content: 'x', mode: 0o755 }]);
  });

  it.each<[string, Entry[], RegExp]>([
    ['a .. name', [{ name: 'w/node_modules/../../../etc/passwd', content: 'root::0:0' }], /\.\. segment/],
    ['an absolute name', [{ name: '/etc/passwd', content: 'root::0:0' }], /not a relative name/],
    ['a name under neither w/ nor a/', [{ name: 'etc/passwd', content: 'x' }], /not under w\/ or a\//],
    [
      'a symbolic link out of its path',
      [{ name: 'w/node_modules/evil', type: 'symlink', linkname: '/etc' }],
      /points out of node_modules/,
    ],
    [
      'a relative symbolic link out of its path',
      [{ name: 'w/node_modules/evil', type: 'symlink', linkname: '../../../etc' }],
      /points out of node_modules/,
    ],
    [
      'a file written through a symbolic link of the archive',
      [
        { name: 'w/node_modules/dir', type: 'symlink', linkname: 'inner' },
        { name: 'w/node_modules/dir/passwd', content: 'x' },
      ],
      /under a symbolic link/,
    ],
    [
      'a symbolic link whose path goes through another link and back up',
      [
        { name: 'w/node_modules/b', type: 'symlink', linkname: '.' },
        { name: 'w/node_modules/a', type: 'symlink', linkname: 'b/b/b/../../etc' },
      ],
      /with \.\. after a name/,
    ],
    [
      'a hard link to a file through a symbolic link of the archive',
      [
        { name: 'w/node_modules/dir', type: 'symlink', linkname: 'inner' },
        { name: 'w/node_modules/x', type: 'link', linkname: 'w/node_modules/dir/passwd' },
      ],
      /through a symbolic link of the archive/,
    ],
    [
      'a hard link to a file outside',
      [{ name: 'w/node_modules/shadow', type: 'link', linkname: 'a/etc/shadow' }],
      /links to a file outside/,
    ],
    ['a device', [{ name: 'w/node_modules/sda', type: 'block-device' }], /block-device/],
    ['a FIFO', [{ name: 'w/node_modules/pipe', type: 'fifo' }], /fifo/],
  ])('refuses %s', async (_what, entries, message) => {
    const restoring = entriesOf(restoreCache(tarOf(entries), places));
    await expect(restoring).rejects.toThrow(UnsafeArchiveError);
    await expect(restoring).rejects.toThrow(message);
  });

  it('refuses a path with .. in the pipeline, which lint refuses too', () => {
    expect(() => cachePlaces(['../outside'], '/drone/src')).toThrow(/without \.\./);
    expect(() => cachePlaces(['/'], '/drone/src')).toThrow(/without \.\./);
  });
});
