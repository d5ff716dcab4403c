import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3, type TestS3 } from '../../../test/support/s3.js';
import { s3Client } from '../objects/object-logs.js';
import { blobStoreContract } from './blob.case.js';
import { DiskBlobStore } from './disk-blobs.js';
import { partSizeFor, S3BlobStore } from './s3-blobs.js';
import { PartBufferPool } from './s3-multipart.js';

// s3rver takes any credentials; the SDK's chain must find some.
process.env.AWS_ACCESS_KEY_ID ??= 'S3RVER';
process.env.AWS_SECRET_ACCESS_KEY ??= 'S3RVER';

blobStoreContract('the server’s disk', () =>
  Promise.resolve(new DiskBlobStore(mkdtempSync(join(tmpdir(), 'svc-blobs-')))),
);

let s3: TestS3 | undefined;
beforeAll(async () => {
  s3 = await startS3(['blobs']);
});
afterAll(async () => {
  await s3?.close();
});
blobStoreContract('an S3-protocol server (s3rver)', () => {
  if (s3 === undefined) throw new Error('s3rver did not start');
  const settings = { bucket: 'blobs', endpoint: s3.endpoint, pathStyle: true, prefix: '' };
  return Promise.resolve(
    new S3BlobStore(s3Client(settings), 'blobs', `svc/${Math.random().toString(36).slice(2)}/`),
  );
});

describe('DiskBlobStore after a crash', () => {
  it('never shows an unfinished write at its key, and removes unfinished writes left idle', async () => {
    const root = mkdtempSync(join(tmpdir(), 'svc-blobs-crash-'));
    const blobs = new DiskBlobStore(root);
    // What a SIGKILL midway leaves: a file in .unfinished, nothing at the key.
    mkdirSync(join(root, '.unfinished'));
    writeFileSync(join(root, '.unfinished', 'abc'), 'half an archive');
    expect(await blobs.get('caches/1/abc')).toBeUndefined();
    const listed = [];
    for await (const blob of blobs.list('')) listed.push(blob.key);
    expect(listed).toEqual([]);
    // Another server's write in progress is left; one idle for long enough is removed.
    expect(await blobs.removeUnfinished(60_000)).toBe(0);
    expect(await blobs.removeUnfinished(60_000, Date.now() + 61_000)).toBe(1);
    expect(readdirSync(join(root, '.unfinished'))).toEqual([]);
  });
});

describe('S3BlobStore multipart uploads (s3rver)', () => {
  const PART = 5 * 1024 * 1024;
  it('stores bodies that end on, just before and just after a part boundary, in chunks of any size', async () => {
    if (s3 === undefined) throw new Error('s3rver did not start');
    const settings = { bucket: 'blobs', endpoint: s3.endpoint, pathStyle: true, prefix: '' };
    const blobs = new S3BlobStore(s3Client(settings), 'blobs', 'svc/boundaries/');
    for (const size of [PART - 1, PART, PART + 1, 2 * PART, 3 * PART + 4099]) {
      const bytes = randomBytes(size);
      // Chunks that straddle the parts: 1 MiB + 1 byte each, and the rest.
      const chunks: Buffer[] = [];
      for (let at = 0; at < size; at += 1024 * 1024 + 1)
        chunks.push(bytes.subarray(at, at + 1024 * 1024 + 1));
      expect(await blobs.put(`k${size}`, Readable.from(chunks))).toEqual({ size });
      const back: Buffer[] = [];
      for await (const chunk of (await blobs.get(`k${size}`)) ?? []) back.push(chunk as Buffer);
      expect(Buffer.concat(back).equals(bytes), `${size} bytes`).toBe(true);
    }
  });
});

describe('PartBufferPool', () => {
  it('gives the same buffers to the next upload and frees those beyond what it keeps', () => {
    const pool = new PartBufferPool(1024, 2);
    const [a, b, c] = [pool.take(), pool.take(), pool.take()];
    for (const buffer of [a, b, c]) pool.give(buffer);
    // Two kept, the third detached: its memory is released now.
    expect(c.buffer.byteLength).toBe(0);
    const again = [pool.take(), pool.take()];
    expect(again.includes(a) && again.includes(b)).toBe(true);
    expect(pool.take()).not.toBe(c);
    expect(a.length).toBe(1024);
  });
});

describe('S3BlobStore part size', () => {
  it('is S3’s smallest part until the largest blob needs more than 10,000 of them', () => {
    expect(partSizeFor(0)).toBe(5 * 1024 * 1024);
    expect(partSizeFor(10 * 1024 ** 3)).toBe(5 * 1024 * 1024);
    const huge = 200 * 1024 ** 3;
    expect(partSizeFor(huge) * 10_000).toBeGreaterThanOrEqual(huge);
  });
});
