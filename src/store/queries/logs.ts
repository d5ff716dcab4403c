import { sql, type Kysely } from 'kysely';
import { SvcError } from '../../core/errors.js';
import type { LogLine, LogStore } from '../../core/log.js';
import type { Connection, DialectAdapter } from '../dialects/adapter.js';
import type { Tables } from '../tables.js';
import { inTransaction } from '../transaction.js';
import { keptBatches, storedBatches } from './log-batches.js';
import { write } from './rows.js';

/**
 * Finished step logs in the `logs` table: the lines as one JSON document per step, stored as bytes
 * in one row, or in consecutive parts where the dialect caps the size of a statement (MySQL,
 * PostgreSQL) — after, for a log made of its step's log batches, those batches' JSON arrays, which
 * stay in `log_batches` (`createFromBatches`).
 */
export class SqlLogStore implements LogStore {
  readonly #db: Kysely<Tables>;
  readonly #adapter: DialectAdapter;

  constructor({ db, adapter }: Connection) {
    this.#db = db;
    this.#adapter = adapter;
  }

  async find(stepId: number): Promise<LogLine[] | undefined> {
    const json = await this.findJson(stepId);
    return json === undefined ? undefined : parseLines(json.toString('utf8'), stepId);
  }

  /**
   * The stored bytes: the parts joined, after the log batches the log is made of (`batches` of part
   * 0), if any. Every log is written by `createJson` or `createFromBatches`, as `linesJson` writes
   * lines.
   */
  async findJson(stepId: number): Promise<Buffer | undefined> {
    // The parts and the batches are two reads: a log replaced or deleted between them is read again.
    for (let attempt = 1; ; attempt++) {
      const parts = await this.#db
        .selectFrom('logs')
        .select(['data', 'batches'])
        .where('step_id', '=', stepId)
        .orderBy('part')
        .execute();
      if (parts.length === 0) return undefined;
      const own = parts.length === 1 ? parts[0]!.data : Buffer.concat(parts.map((part) => part.data));
      const kept = Number(parts[0]!.batches);
      if (kept === 0) return own;
      const batches = await this.#db
        .selectFrom('log_batches')
        .select('data')
        .where('step_id', '=', stepId)
        .where('batch', '>=', 0)
        .where('batch', '<', kept)
        .orderBy('batch')
        .execute();
      if (batches.length === kept) return joinJsonArrays([...batches.map((batch) => batch.data), own]);
      if (attempt === 2) {
        throw new SvcError('INTERNAL', `the log of step ${stepId} lacks some of its ${kept} log batches`);
      }
    }
  }

  async create(stepId: number, lines: readonly LogLine[]): Promise<void> {
    await this.createJson(stepId, [], lines);
  }

  /**
   * Stores the log made of `arrays` — JSON arrays of lines (`[{"pos","out","time"},…]`, as log
   * batches hold them), joined as they are, without reading them into lines — then `rest`: what
   * `create` with all their lines, in order, stores. Batches an earlier log of the step was made
   * of go with it.
   */
  async createJson(stepId: number, arrays: readonly Buffer[], rest: readonly LogLine[] = []): Promise<void> {
    const bytes = joinJsonArrays(
      rest.length > 0 ? [...arrays, Buffer.from(linesJson(rest), 'utf8')] : arrays,
    );
    await write(
      this.#adapter,
      () =>
        inTransaction(this.#db, async (trx) => {
          await this.#remove(trx, stepId);
          await this.#insertParts(trx, stepId, bytes, 0);
        }),
      { missing: `step ${stepId}` },
    );
  }

  /**
   * The step's batches 0 … count − 1 stay where they are as the log's first parts, and `rest` is
   * the log's own part: a log of a million lines is written once, as its batches arrived, not copied
   * at the step's end (bench/analysis.md, log-throughput). Checked and written in one transaction,
   * so batches deleted meanwhile (a stage closed) make it store nothing.
   */
  async createFromBatches(stepId: number, count: number, rest: readonly LogLine[]): Promise<boolean> {
    return write(
      this.#adapter,
      () =>
        inTransaction(this.#db, async (trx) => {
          if (!(await storedBatches(trx, stepId, count))) return false;
          await trx.deleteFrom('logs').where('step_id', '=', stepId).execute();
          await this.#insertParts(trx, stepId, Buffer.from(linesJson(rest), 'utf8'), count);
          return true;
        }),
      { missing: `step ${stepId}` },
    );
  }

  /** Deletes the log, with the batches it was made of. */
  async delete(stepId: number): Promise<void> {
    await inTransaction(this.#db, (trx) => this.#remove(trx, stepId));
  }

  /** Removes the step's log: its parts, and the batches it was made of. */
  async #remove(trx: Kysely<Tables>, stepId: number): Promise<void> {
    await trx
      .deleteFrom('log_batches')
      .where('step_id', '=', stepId)
      .where(sql<boolean>`batch < ${keptBatches(stepId)}`)
      .execute();
    await trx.deleteFrom('logs').where('step_id', '=', stepId).execute();
  }

  /** Writes `bytes` as the step's parts, each at most the dialect's largest value. */
  async #insertParts(trx: Kysely<Tables>, stepId: number, bytes: Buffer, batches: number): Promise<void> {
    const size = this.#adapter.maxBlobBytes;
    for (let part = 0; part === 0 || part * size < bytes.length; part++) {
      const data = bytes.subarray(part * size, (part + 1) * size);
      await trx.insertInto('logs').values({ step_id: stepId, part, data, batches }).execute();
    }
  }

  /** Nothing to do: the rows went with their steps (foreign keys cascade). */
  async purged(): Promise<void> {}
}

/**
 * `JSON.stringify` of the lines as `{pos, out, time}` objects (other properties left out), built
 * by hand: about twice as fast for the thousands of lines of a batch, and the millions of a log.
 */
export function linesJson(lines: readonly LogLine[]): string {
  let json = '[';
  for (let i = 0; i < lines.length; i++) {
    const { pos, out, time } = lines[i]!;
    json += `${i === 0 ? '' : ','}{"pos":${number(pos)},"out":${JSON.stringify(out)},"time":${number(time)}}`;
  }
  return `${json}]`;
}

/** A number as JSON writes it (non-finite ones as null). */
function number(value: number): number | 'null' {
  return Number.isFinite(value) ? value : 'null';
}

const OPEN = 0x5b; // [
const CLOSE = 0x5d; // ]
const COMMA = Buffer.from(',');

/** `[a…]`, `[]`, `[b…]` → `[a…,b…]`, copying bytes only. */
export function joinJsonArrays(arrays: readonly Buffer[]): Buffer {
  for (const array of arrays) {
    if (array[0] !== OPEN || array[array.length - 1] !== CLOSE) {
      throw new SvcError('INTERNAL', 'a part of a log to store is not a JSON array');
    }
  }
  const filled = arrays.filter((array) => array.length > 2);
  if (filled.length === 1) return filled[0]!;
  const parts: Buffer[] = [Buffer.from('[')];
  for (const array of filled) {
    if (parts.length > 1) parts.push(COMMA);
    parts.push(array.subarray(1, array.length - 1));
  }
  parts.push(Buffer.from(']'));
  return Buffer.concat(parts);
}

/** The lines of a stored log; its objects are checked in place rather than copied (a log may hold millions). */
export function parseLines(json: string, stepId: number): LogLine[] {
  const value: unknown = JSON.parse(json);
  if (!Array.isArray(value)) throw malformed(stepId);
  for (const item of value as unknown[]) {
    const line = item as Partial<Record<keyof LogLine, unknown>> | null;
    if (typeof line?.pos !== 'number' || typeof line.out !== 'string' || typeof line.time !== 'number') {
      throw malformed(stepId);
    }
  }
  return value as LogLine[];
}

function malformed(stepId: number): SvcError {
  return new SvcError('INTERNAL', `the log of step ${stepId} holds malformed JSON in the database`);
}
