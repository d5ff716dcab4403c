import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  UploadPartCommand,
  type CompletedPart,
  type S3Client,
} from '@aws-sdk/client-s3';
import type { Readable } from 'node:stream';

/** Where an upload goes and how it is cut. */
export interface MultipartTarget {
  readonly client: S3Client;
  readonly bucket: string;
  readonly key: string;
  /** Parts sent at once. */
  readonly inFlight: number;
  readonly signal?: AbortSignal;
}

const CONTENT_TYPE = 'application/octet-stream';

/**
 * Streams `body` into one object, a part (the pool's buffer size) at a time, and answers its size.
 * The parts are read into `inFlight + 1` buffers of the pool, used again part after part: the SDK's
 * own multipart upload made a new buffer per part (and copied into it), which V8 freed only at its
 * next full collection, so a 2 GiB upload grew the server by 50–90 MiB (bench/analysis.md,
 * "Caches", memory). A body smaller than one part is one PutObject. An upload that fails is aborted, so
 * S3 never shows a part of it.
 */
export async function putMultipart(
  target: MultipartTarget,
  body: Readable,
  pool: PartBufferPool,
): Promise<number> {
  const buffers = new UploadBuffers(pool, target.inFlight + 1);
  const { client, bucket: Bucket, key: Key, signal } = target;
  let uploadId: string | undefined;
  const sending: Promise<CompletedPart>[] = [];
  const sent: CompletedPart[] = [];
  let size = 0;
  try {
    let part = buffers.take();
    let filled = 0;
    for await (const chunk of body as AsyncIterable<Buffer>) {
      size += chunk.length;
      let at = 0;
      while (at < chunk.length) {
        const copied = chunk.copy(part, filled, at);
        at += copied;
        filled += copied;
        if (filled < part.length) continue;
        uploadId ??= await createUpload(target);
        sending.push(quiet(sendPart(target, uploadId, sent.length + sending.length + 1, part, buffers)));
        if (sending.length >= target.inFlight) sent.push(await (sending.shift() as Promise<CompletedPart>));
        part = buffers.take();
        filled = 0;
      }
    }
    const last = part.subarray(0, filled);
    if (uploadId === undefined) {
      await client.send(new PutObjectCommand({ Bucket, Key, Body: last, ContentType: CONTENT_TYPE }), {
        abortSignal: signal,
      });
      return size;
    }
    if (filled > 0)
      sending.push(quiet(sendPart(target, uploadId, sent.length + sending.length + 1, last, buffers)));
    sent.push(...(await Promise.all(sending.splice(0))));
    await client.send(
      new CompleteMultipartUploadCommand({
        Bucket,
        Key,
        UploadId: uploadId,
        MultipartUpload: { Parts: sent },
      }),
      { abortSignal: signal },
    );
    return size;
  } catch (error) {
    // Parts still being sent are let finish (their buffers are in use) before the upload goes.
    await Promise.allSettled(sending);
    if (uploadId !== undefined)
      await client
        .send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId: uploadId }))
        .catch(() => undefined);
    throw error;
  } finally {
    await Promise.allSettled(sending);
    buffers.release();
  }
}

/** `sending` itself, its failure handled for now (it is awaited later, when its turn comes). */
function quiet<T>(sending: Promise<T>): Promise<T> {
  sending.catch(() => undefined);
  return sending;
}

async function createUpload(target: MultipartTarget): Promise<string> {
  // As the SDK's own multipart upload does: where the client adds checksums to the parts (AWS, by
  // default), the upload declares CRC32 and its completion lists each part's.
  const checksums = await target.client.config.requestChecksumCalculation();
  const created = await target.client.send(
    new CreateMultipartUploadCommand({
      Bucket: target.bucket,
      Key: target.key,
      ContentType: CONTENT_TYPE,
      ...(checksums === 'WHEN_SUPPORTED' ? { ChecksumAlgorithm: 'CRC32' } : {}),
    }),
    { abortSignal: target.signal },
  );
  if (created.UploadId === undefined) throw new Error(`the bucket started no upload for ${target.key}`);
  return created.UploadId;
}

/** Sends one part; its buffer goes back to `buffers` once S3 has answered (it is not read after that). */
async function sendPart(
  target: MultipartTarget,
  uploadId: string,
  PartNumber: number,
  data: Buffer,
  buffers: UploadBuffers,
): Promise<CompletedPart> {
  try {
    const answer = await target.client.send(
      new UploadPartCommand({
        Bucket: target.bucket,
        Key: target.key,
        UploadId: uploadId,
        PartNumber,
        Body: data,
        ContentLength: data.length,
      }),
      { abortSignal: target.signal },
    );
    const { ETag, ChecksumCRC32, ChecksumCRC32C, ChecksumCRC64NVME, ChecksumSHA1, ChecksumSHA256 } = answer;
    const checksums = { ChecksumCRC32, ChecksumCRC32C, ChecksumCRC64NVME, ChecksumSHA1, ChecksumSHA256 };
    return {
      ETag,
      PartNumber,
      ...Object.fromEntries(Object.entries(checksums).filter(([, value]) => value !== undefined)),
    };
  } finally {
    buffers.give(data);
  }
}

/**
 * Part buffers kept from upload to upload: the first upload's are the next one's, so a server that
 * uploads all day holds `keep` of them (15 MiB with 5 MiB parts) rather than making and dropping
 * three per upload. Buffers beyond `keep` (uploads at the same time) are freed when given back.
 */
export class PartBufferPool {
  readonly #free: Buffer[] = [];

  constructor(
    readonly size: number,
    private readonly keep: number,
  ) {}

  take(): Buffer {
    return this.#free.pop() ?? Buffer.allocUnsafeSlow(this.size);
  }

  give(buffer: Buffer): void {
    if (this.#free.length < this.keep) this.#free.push(buffer);
    // Detaching an ArrayBuffer releases its memory now rather than at V8's next full collection;
    // each was allocated alone (allocUnsafeSlow), so its ArrayBuffer is its own.
    else (buffer.buffer as ArrayBuffer).transfer(0);
  }
}

/** One upload's buffers: at most `count` taken from the pool, each used again part after part. */
class UploadBuffers {
  readonly #taken: Buffer[] = [];
  readonly #free: Buffer[] = [];

  constructor(
    private readonly pool: PartBufferPool,
    private readonly count: number,
  ) {}

  take(): Buffer {
    const reused = this.#free.pop();
    if (reused !== undefined) return reused;
    if (this.#taken.length >= this.count) throw new Error('every part buffer is in use');
    const taken = this.pool.take();
    this.#taken.push(taken);
    return taken;
  }

  /** `data` (a whole buffer or a part of one) is not read any more. */
  give(data: Buffer): void {
    const whole = this.#taken.find((buffer) => buffer.buffer === data.buffer);
    if (whole !== undefined && !this.#free.includes(whole)) this.#free.push(whole);
  }

  /** Back to the pool, once no part is being sent. */
  release(): void {
    for (const buffer of this.#taken.splice(0)) this.pool.give(buffer);
    this.#free.length = 0;
  }
}
