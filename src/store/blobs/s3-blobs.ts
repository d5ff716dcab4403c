import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  S3ServiceException,
  type S3Client,
} from '@aws-sdk/client-s3';
import { Readable } from 'node:stream';
import type { BlobInfo, BlobStore, ByteRange } from '../../core/blob.js';
import { blobKeySegments, blobPrefixSegments, checkRange } from './blob-key.js';
import { PartBufferPool, putMultipart } from './s3-multipart.js';

/**
 * Multipart parts of 5 MiB (S3's smallest), two in flight: an upload holds three parts' buffers,
 * whatever its size (s3-multipart.ts).
 */
const SMALLEST_PART = 5 * 1024 * 1024;
const PARTS_IN_FLIGHT = 2;
/** S3's limit on the parts of one upload. */
const MAX_PARTS = 10_000;

/** The part size that lets an upload reach `largest` bytes within S3's 10,000 parts. */
export function partSizeFor(largest: number): number {
  return Math.max(SMALLEST_PART, Math.ceil(largest / MAX_PARTS));
}

/**
 * Blobs as objects of an S3-compatible bucket (SVC_OBJSTORE_*), under `prefix`. Uploads are
 * multipart (parts of 5 MiB, larger when `largest` needs them): S3 shows an object only once its upload completes, so an
 * interrupted one is never read (an aborted multipart upload is aborted; one a crash left is the
 * bucket's to expire — docs/caches.md says how).
 */
export class S3BlobStore implements BlobStore {
  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    /** Prepended to every key, e.g. `svc/caches/` (may be empty). */
    private readonly prefix: string,
    /** The largest blob that will be put (the size limits' largest): sets the part size. */
    largest = 0,
  ) {
    this.#parts = new PartBufferPool(partSizeFor(largest), PARTS_IN_FLIGHT + 1);
  }

  /** Shared by this store's uploads, kept from one to the next. */
  readonly #parts: PartBufferPool;

  async put(key: string, body: Readable, signal?: AbortSignal): Promise<{ size: number }> {
    const target = {
      client: this.client,
      bucket: this.bucket,
      key: this.#key(key),
      inFlight: PARTS_IN_FLIGHT,
      ...(signal === undefined ? {} : { signal }),
    };
    return { size: await putMultipart(target, body, this.#parts) };
  }

  async get(key: string, range?: ByteRange): Promise<Readable | undefined> {
    checkRange(range);
    if (range !== undefined && range.end === range.start) {
      // S3 has no empty range: a zero-length read of an object that exists.
      const first = await this.get(key, { start: 0, end: 1 }).catch(() => undefined);
      first?.destroy();
      return first === undefined ? undefined : Readable.from([]);
    }
    try {
      const answer = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: this.#key(key),
          ...(range === undefined ? {} : { Range: `bytes=${range.start}-${range.end - 1}` }),
        }),
      );
      if (answer.Body instanceof Readable) return answer.Body;
      throw new Error(`the object ${key} came without a readable body`);
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.#key(key) }));
  }

  async *list(prefix: string): AsyncIterable<BlobInfo> {
    const segments = blobPrefixSegments(prefix);
    const Prefix = this.prefix + (segments.length === 0 ? '' : `${segments.join('/')}/`);
    let ContinuationToken: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix, ContinuationToken }),
      );
      for (const object of page.Contents ?? []) {
        if (object.Key === undefined) continue;
        yield {
          key: object.Key.slice(this.prefix.length),
          size: object.Size ?? 0,
          modified: object.LastModified?.getTime() ?? 0,
        };
      }
      ContinuationToken = page.IsTruncated === true ? page.NextContinuationToken : undefined;
    } while (ContinuationToken !== undefined);
  }

  #key(key: string): string {
    return this.prefix + blobKeySegments(key).join('/');
  }
}

function isMissing(error: unknown): boolean {
  return (
    error instanceof NoSuchKey ||
    (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404)
  );
}
