/*
 * The design svc did not take, built only for the benchmark: the runner moving a cache archive
 * straight to and from the bucket with presigned URLs, instead of through the server. The URLs
 * are signed as @aws-sdk/s3-request-presigner signs them (query-string SigV4, UNSIGNED-PAYLOAD),
 * with the signer @aws-sdk/client-s3 itself uses (@smithy/signature-v4, installed with it).
 */
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  S3Client,
  type CompletedPart,
} from '@aws-sdk/client-s3';
import { SignatureV4 } from '@smithy/signature-v4';
import http, { type IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { partSizeFor } from '../../src/store/blobs/s3-blobs.js';
import { S3RVER_CREDENTIALS } from './cache-builds.js';

/** As the server's S3BlobStore uploads (src/store/blobs/s3-blobs.ts): parts of 5 MiB, two in flight. */
const PART_SIZE = partSizeFor(0);
const PARTS_IN_FLIGHT = 2;
const REGION = 'us-east-1';

/** A bucket of an S3-protocol server, addressed path-style, and what signs for it. */
export class PresignedBucket {
  readonly #url: URL;
  readonly #client: S3Client;
  readonly #signer: SignatureV4;
  readonly #agent = new http.Agent({ keepAlive: true });

  constructor(
    endpoint: string,
    readonly bucket: string,
  ) {
    this.#url = new URL(endpoint);
    this.#client = new S3Client({
      endpoint,
      forcePathStyle: true,
      region: REGION,
      credentials: S3RVER_CREDENTIALS,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    this.#signer = new SignatureV4({
      service: 's3',
      region: REGION,
      credentials: S3RVER_CREDENTIALS,
      sha256: this.#client.config.sha256,
      uriEscapePath: false,
    });
  }

  /** A URL that lets its holder `method` the object `key` (with `query`, e.g. a part's) for an hour. */
  async presign(method: 'GET' | 'PUT', key: string, query: Record<string, string> = {}): Promise<string> {
    const host = this.#url.host;
    const signed = await this.#signer.presign(
      {
        method,
        protocol: this.#url.protocol,
        hostname: this.#url.hostname,
        port: Number(this.#url.port),
        path: `/${this.bucket}/${key.split('/').map(encodeURIComponent).join('/')}`,
        query,
        headers: { host, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' },
      },
      { expiresIn: 3600 },
    );
    const search = Object.entries(signed.query ?? {})
      .flatMap(([name, value]) =>
        (Array.isArray(value) ? value : [value ?? '']).map(
          (one) => `${encodeURIComponent(name)}=${encodeURIComponent(one)}`,
        ),
      )
      .join('&');
    return `${this.#url.protocol}//${host}${signed.path}?${search}`;
  }

  /**
   * One presigned PUT of the whole archive, streamed with chunked encoding. s3rver takes it; AWS
   * S3 would not (a PUT needs its Content-Length, which a streamed archive does not know).
   */
  async putSingle(key: string, archive: Readable): Promise<void> {
    const url = await this.presign('PUT', key);
    const request = http.request(url, { method: 'PUT', agent: this.#agent });
    const answer = answered(request);
    await pipeline(archive, request);
    await expectOk(await answer, 'PUT');
  }

  /**
   * The archive as a multipart upload whose parts the runner PUTs with presigned URLs (5 MiB, two in
   * flight, as the server's own upload); creating and completing it stay the server's (here: the SDK).
   */
  async putMultipart(key: string, archive: Readable): Promise<void> {
    const { Bucket, Key } = { Bucket: this.bucket, Key: key };
    const { UploadId } = await this.#client.send(new CreateMultipartUploadCommand({ Bucket, Key }));
    if (UploadId === undefined) throw new Error('no upload id');
    const parts: CompletedPart[] = [];
    const inFlight = new Set<Promise<void>>();
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let partNumber = 0;
    const sendPart = async (body: Buffer, number: number): Promise<void> => {
      const url = await this.presign('PUT', key, { partNumber: String(number), uploadId: UploadId });
      const request = http.request(url, {
        method: 'PUT',
        agent: this.#agent,
        headers: { 'content-length': body.length },
      });
      const answer = answered(request);
      request.end(body);
      const response = await answer;
      await expectOk(response, `part ${number}`);
      parts.push({ PartNumber: number, ETag: String(response.headers.etag ?? '') });
    };
    const flush = async (): Promise<void> => {
      const task = sendPart(Buffer.concat(pending), ++partNumber).finally(() => inFlight.delete(task));
      task.catch(() => undefined);
      inFlight.add(task);
      pending = [];
      pendingBytes = 0;
      if (inFlight.size >= PARTS_IN_FLIGHT) await Promise.race(inFlight);
    };
    try {
      for await (const chunk of archive as AsyncIterable<Buffer>) {
        pending.push(chunk);
        pendingBytes += chunk.length;
        if (pendingBytes >= PART_SIZE) await flush();
      }
      if (pendingBytes > 0 || partNumber === 0) await flush();
      await Promise.all(inFlight);
      parts.sort((a, b) => (a.PartNumber ?? 0) - (b.PartNumber ?? 0));
      await this.#client.send(
        new CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload: { Parts: parts } }),
      );
    } catch (error) {
      await this.#client
        .send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId }))
        .catch(() => undefined);
      throw error;
    }
  }

  /** The object `key` through a presigned GET, as a stream. */
  async get(key: string): Promise<IncomingMessage> {
    const request = http.request(await this.presign('GET', key), { agent: this.#agent });
    const answer = answered(request);
    request.end();
    const response = await answer;
    if (response.statusCode !== 200) await expectOk(response, 'GET');
    return response;
  }

  close(): void {
    this.#agent.destroy();
    this.#client.destroy();
  }
}

function answered(request: http.ClientRequest): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    request.once('response', resolve);
    request.once('error', reject);
  });
}

/** Reads the answer; throws with its status and body unless it is 2xx. */
async function expectOk(response: IncomingMessage, what: string): Promise<void> {
  let body = '';
  for await (const chunk of response as AsyncIterable<Buffer>) body += chunk.toString();
  const status = response.statusCode ?? 0;
  if (status < 200 || status >= 300) throw new Error(`presigned ${what}: ${status} ${body.slice(0, 300)}`);
}
