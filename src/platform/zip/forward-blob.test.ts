import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readCentralDirectory } from './central-directory.js';
import { entryStream } from './entry-stream.js';
import { bytesOf, tarOf, zipOf } from './fixtures.case.js';
import { forwardZipBlob } from './forward-blob.js';
import type { ZipBlob } from './zip-blob.js';

/** A zip in memory whose ranges are counted, as requests to a bucket would be. */
async function countedZip(files: number): Promise<{ blob: ZipBlob; opened: () => number }> {
  const entries = Array.from({ length: files }, (_, i) => ({
    name: `dir/file-${i}.txt`,
    content: `content of file ${i}\n`.repeat(1 + (i % 7) * 50),
  }));
  const { bytes } = await zipOf(tarOf([{ name: 'dir/', type: 'directory' }, ...entries]));
  let opened = 0;
  const blob: ZipBlob = {
    size: bytes.length,
    range: (start, end) => {
      opened += 1;
      // Small chunks, as a socket answers.
      const part = bytes.subarray(start, end);
      return Readable.from(
        (function* () {
          for (let at = 0; at < part.length; at += 1000) yield part.subarray(at, at + 1000);
        })(),
      );
    },
  };
  return { blob, opened: () => opened };
}

describe('forwardZipBlob', () => {
  it('reads every entry of a zip through one open range, the same bytes as range by range', async () => {
    const { blob, opened } = await countedZip(300);
    const entries = await readCentralDirectory(blob);
    const direct = new Map<string, Buffer>();
    for (const entry of entries) direct.set(entry.name, await bytesOf(await entryStream(blob, entry)));
    const before = opened();
    expect(before).toBeGreaterThan(600);

    const forward = forwardZipBlob(blob);
    const counted = opened();
    for (const entry of entries)
      expect(await bytesOf(await entryStream(forward, entry)), entry.name).toEqual(direct.get(entry.name));
    forward.close();
    expect(opened() - counted).toBe(1);
  });

  it('opens anew for a range before its position, and after a range left unread', async () => {
    const { blob, opened } = await countedZip(20);
    const entries = await readCentralDirectory(blob);
    const files = entries.filter((entry) => !entry.isDirectory);
    const forward = forwardZipBlob(blob);
    const last = files.at(-1)!;
    const first = files[0]!;
    const start = opened();
    const expected = await bytesOf(await entryStream(blob, first));
    expect(await bytesOf(await entryStream(forward, last))).toEqual(
      await bytesOf(await entryStream(blob, last)),
    );
    // Backwards: a new range.
    expect(await bytesOf(await entryStream(forward, first))).toEqual(expected);
    // A range destroyed before its end leaves the position unknown: the next is opened anew.
    const half = await entryStream(forward, files[1]!);
    half.destroy();
    expect(await bytesOf(await entryStream(forward, files[2]!))).toEqual(
      await bytesOf(await entryStream(blob, files[2]!)),
    );
    forward.close();
    // first and last read directly: 2 + 2; forward: last (1), first (1), after the destroyed one (1), files[2] directly (2).
    expect(opened() - start).toBe(9);
  });
});
