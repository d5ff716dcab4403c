import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { BlobStore } from '../../core/blob.js';

/** `size` bytes of a seeded pattern, made as they are read: a large blob never sits in memory. */
function pattern(size: number, seed: number): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= size) return void this.push(null);
      const chunk = Buffer.alloc(Math.min(64 * 1024, size - sent), (seed + sent / 65_536) % 251);
      sent += chunk.length;
      this.push(chunk);
    },
  });
}

async function digest(stream: Readable | undefined): Promise<{ size: number; sha: string } | undefined> {
  if (stream === undefined) return undefined;
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of stream) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { size, sha: hash.digest('hex') };
}

const expected = async (size: number, seed: number) => digest(pattern(size, seed));

/** A source that sends some bytes, then fails: a runner whose upload broke off. */
function failing(after: number): Readable {
  let sent = false;
  return new Readable({
    read() {
      if (!sent) {
        sent = true;
        this.push(randomBytes(after));
      } else this.destroy(new Error('the runner went away'));
    },
  });
}

/** The BlobStore contract (core/blob.ts), for every adapter. */
export function blobStoreContract(name: string, open: () => Promise<BlobStore>): void {
  describe(`BlobStore contract: ${name}`, () => {
    it('stores a stream and answers the same bytes; a missing key is undefined', async () => {
      const blobs = await open();
      const size = 20 * 1024 * 1024 + 17;
      expect(await blobs.put('caches/1/a', pattern(size, 1))).toEqual({ size });
      expect(await digest(await blobs.get('caches/1/a'))).toEqual(await expected(size, 1));
      expect(await blobs.get('caches/1/missing')).toBeUndefined();
      expect(await blobs.put('caches/1/empty', Readable.from([]))).toEqual({ size: 0 });
      expect(await digest(await blobs.get('caches/1/empty'))).toEqual(await expected(0, 0));
    });

    it('replaces a key; a failed write leaves what was there, and nothing where nothing was', async () => {
      const blobs = await open();
      await blobs.put('caches/2/k', pattern(1000, 2));
      await blobs.put('caches/2/k', pattern(3000, 3));
      expect(await digest(await blobs.get('caches/2/k'))).toEqual(await expected(3000, 3));
      await expect(blobs.put('caches/2/k', failing(10 * 1024 * 1024))).rejects.toThrow(/went away/);
      expect(await digest(await blobs.get('caches/2/k'))).toEqual(await expected(3000, 3));
      await expect(blobs.put('caches/2/new', failing(1024))).rejects.toThrow(/went away/);
      expect(await blobs.get('caches/2/new')).toBeUndefined();
    });

    it('answers a range of a blob: start included, end not', async () => {
      const blobs = await open();
      await blobs.put('artifacts/1/z', Readable.from([Buffer.from('0123456789abcdef')]));
      const text = async (start: number, end: number, key = 'artifacts/1/z') => {
        const stream = await blobs.get(key, { start, end });
        if (stream === undefined) return undefined;
        const chunks: Buffer[] = [];
        for await (const chunk of stream) chunks.push(chunk as Buffer);
        return Buffer.concat(chunks).toString();
      };
      expect(await text(0, 4)).toBe('0123');
      expect(await text(10, 16)).toBe('abcdef');
      expect(await text(5, 5)).toBe('');
      expect(await text(0, 4, 'artifacts/1/none')).toBeUndefined();
      expect(await text(3, 3, 'artifacts/1/none')).toBeUndefined();
      await expect(blobs.get('artifacts/1/z', { start: 4, end: 2 })).rejects.toThrow(/byte range/);
    });

    it('deletes (a missing key too) and lists under a prefix', async () => {
      const blobs = await open();
      await blobs.put('caches/3/x', pattern(10, 4));
      await blobs.put('caches/3/y/z', pattern(20, 5));
      await blobs.put('caches/30/other', pattern(5, 6));
      const listed = [];
      for await (const blob of blobs.list('caches/3')) listed.push(blob);
      expect(listed.map((b) => [b.key, b.size]).sort()).toEqual([
        ['caches/3/x', 10],
        ['caches/3/y/z', 20],
      ]);
      expect(listed.every((b) => b.modified > Date.now() - 600_000)).toBe(true);
      await blobs.delete('caches/3/x');
      await blobs.delete('caches/3/never');
      expect(await blobs.get('caches/3/x')).toBeUndefined();
      expect(await digest(await blobs.get('caches/3/y/z'))).toEqual(await expected(20, 5));
    });

    it('refuses keys that could name something outside the store', async () => {
      const blobs = await open();
      for (const key of ['../x', 'caches/../../etc/passwd', '/abs', 'a//b', 'a/./b', 'a/b/', 'sp ace', ''])
        await expect(blobs.put(key, Readable.from([Buffer.from('x')])), key).rejects.toThrow(/blob key/);
      await expect(blobs.get('../x')).rejects.toThrow(/blob key/);
    });
  });
}
