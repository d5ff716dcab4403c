import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  NoSuchKey,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { LogLine, LogStore } from '../../core/log.js';
import type { LogBatchStore } from '../../core/log-batch.js';
import { joinJsonArrays, linesJson, parseLines } from '../queries/logs.js';

/** SVC_OBJSTORE_*: where finished logs go. */
export interface ObjectStoreSettings {
  bucket: string;
  /** A custom endpoint (an S3-compatible server); undefined for AWS's own. */
  endpoint: string | undefined;
  pathStyle: boolean;
  /** Objects are `<prefix>/<step id>`; empty for `<step id>`. */
  prefix: string;
}

/** How a log store reports what it could not do (and did instead). */
export type ObjectLogReporter = (message: string, error: unknown) => void;

/** Pauses before the second and third upload attempts. */
const RETRY_DELAYS_MS = [500, 2_000];

/**
 * Finished step logs in an S3-compatible bucket (SVC_OBJSTORE_BUCKET), over the database's store:
 * - a finished log is uploaded as one JSON object `<prefix>/<step id>` (large ones in parts); an
 *   upload that still fails after three tries keeps the log in the database, where reads find it —
 *   never lost — and is reported;
 * - reads try the bucket, then the database (logs stored before the bucket was configured);
 * - deleting a log deletes both; `purged` deletes the objects of steps whose builds were purged.
 * Credentials and region come from the AWS SDK's standard chain (environment, shared files, roles).
 */
export class ObjectLogStore implements LogStore {
  readonly #database: LogStore;
  readonly #batches: Pick<LogBatchStore, 'json'>;
  readonly #client: S3Client;
  readonly #settings: ObjectStoreSettings;
  readonly #report: ObjectLogReporter;

  constructor(
    database: LogStore,
    batches: Pick<LogBatchStore, 'json'>,
    settings: ObjectStoreSettings,
    report: ObjectLogReporter,
    client?: S3Client,
  ) {
    this.#database = database;
    this.#batches = batches;
    this.#settings = settings;
    this.#report = report;
    this.#client = client ?? s3Client(settings);
  }

  /** The database's store under this one: what holds logs from before the bucket, and the fallbacks. */
  get database(): LogStore {
    return this.#database;
  }

  /** Checks the bucket answers to these credentials; throws a message naming the bucket and endpoint. */
  async check(): Promise<void> {
    try {
      await this.#client.send(new HeadBucketCommand({ Bucket: this.#settings.bucket }));
    } catch (error) {
      const where = this.#settings.endpoint ?? 'AWS S3';
      const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      const why =
        status === 404
          ? 'no such bucket'
          : status === 403
            ? 'access denied to these credentials'
            : (error as Error).message || (error as Error).name;
      throw new Error(
        `SVC_OBJSTORE_BUCKET: cannot use the bucket "${this.#settings.bucket}" at ${where}: ${why}`,
        {
          cause: error,
        },
      );
    }
  }

  key(stepId: number): string {
    const prefix = this.#settings.prefix.replace(/\/+$/, '');
    return prefix === '' ? String(stepId) : `${prefix}/${stepId}`;
  }

  async find(stepId: number): Promise<LogLine[] | undefined> {
    const json = await this.findJson(stepId);
    return json === undefined ? undefined : parseLines(json.toString('utf8'), stepId);
  }

  /** The object's bytes as uploaded (written by `createJson`, as the database's store writes them). */
  async findJson(stepId: number): Promise<Buffer | undefined> {
    try {
      const answer = await this.#client.send(
        new GetObjectCommand({ Bucket: this.#settings.bucket, Key: this.key(stepId) }),
      );
      const bytes = await answer.Body?.transformToByteArray();
      // An object without a body reads as a log without lines.
      return bytes === undefined
        ? Buffer.from('[]')
        : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    } catch (error) {
      if (!isMissing(error)) {
        const stored = await this.#database.findJson(stepId);
        if (stored !== undefined) return stored;
        throw error;
      }
    }
    return await this.#database.findJson(stepId);
  }

  async create(stepId: number, lines: readonly LogLine[]): Promise<void> {
    await this.createJson(stepId, [], lines);
  }

  async createJson(stepId: number, arrays: readonly Buffer[], rest: readonly LogLine[]): Promise<void> {
    await this.#upload(stepId, arrays, rest, () => this.#database.createJson(stepId, arrays, rest));
  }

  /** The batches' JSON is read from the database and uploaded with `rest`; the batches stay for LogBatchStore.delete. */
  async createFromBatches(stepId: number, count: number, rest: readonly LogLine[]): Promise<boolean> {
    const stored = await this.#batches.json(stepId, count);
    if (stored === undefined) return false;
    await this.#upload(stepId, stored.batches, rest, async () => {
      // Kept in the database as the batches themselves; if they went meanwhile, as their bytes.
      if (!(await this.#database.createFromBatches(stepId, count, rest))) {
        await this.#database.createJson(stepId, stored.batches, rest);
      }
    });
    return true;
  }

  /** Uploads the log, tried three times; then `fallback` keeps it in the database, reported. */
  async #upload(
    stepId: number,
    arrays: readonly Buffer[],
    rest: readonly LogLine[],
    fallback: () => Promise<unknown>,
  ): Promise<void> {
    const body = joinJsonArrays(rest.length > 0 ? [...arrays, Buffer.from(linesJson(rest), 'utf8')] : arrays);
    let last: unknown;
    for (let attempt = 0; attempt <= RETRY_DELAYS_MS.length; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, RETRY_DELAYS_MS[attempt - 1]));
      try {
        await new Upload({
          client: this.#client,
          params: {
            Bucket: this.#settings.bucket,
            Key: this.key(stepId),
            Body: body,
            ContentType: 'application/json',
          },
        }).done();
        // A log stored in the database before (a rerun's, an earlier fallback) is the bucket's now.
        await this.#database.delete(stepId);
        return;
      } catch (error) {
        last = error;
      }
    }
    this.#report(
      `cannot upload the log of step ${stepId} to the bucket "${this.#settings.bucket}" after ${RETRY_DELAYS_MS.length + 1} tries; it stays in the database`,
      last,
    );
    await fallback();
  }

  async delete(stepId: number): Promise<void> {
    await this.#client.send(
      new DeleteObjectCommand({ Bucket: this.#settings.bucket, Key: this.key(stepId) }),
    );
    await this.#database.delete(stepId);
  }

  async purged(stepIds: readonly number[]): Promise<void> {
    for (let start = 0; start < stepIds.length; start += 1000) {
      const Objects = stepIds.slice(start, start + 1000).map((id) => ({ Key: this.key(id) }));
      await this.#client.send(
        new DeleteObjectsCommand({ Bucket: this.#settings.bucket, Delete: { Objects, Quiet: true } }),
      );
    }
  }
}

function isMissing(error: unknown): boolean {
  return (
    error instanceof NoSuchKey ||
    (error instanceof S3ServiceException &&
      (error.name === 'NoSuchKey' || error.$metadata.httpStatusCode === 404))
  );
}

/**
 * The S3 client of the settings. A custom endpoint (an S3-compatible server) gets path-style
 * addressing when asked, a region when the standard chain has none (such servers ignore it), and
 * checksums only where required: streamed bodies would otherwise go aws-chunked, which not every
 * S3-compatible server understands.
 */
export function s3Client(settings: ObjectStoreSettings): S3Client {
  const custom = settings.endpoint !== undefined;
  const hasRegion = Boolean(process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION);
  return new S3Client({
    ...(custom ? { endpoint: settings.endpoint } : {}),
    forcePathStyle: settings.pathStyle,
    ...(custom && !hasRegion ? { region: 'us-east-1' } : {}),
    ...(custom
      ? { requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' }
      : {}),
  });
}
