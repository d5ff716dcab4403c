import { sql, type Kysely, type RawBuilder } from 'kysely';
import { SvcError } from '../../core/errors.js';
import type { LogLine } from '../../core/log.js';
import type { LogBatchStore } from '../../core/log-batch.js';
import type { Connection, DialectAdapter } from '../dialects/adapter.js';
import type { Tables } from '../tables.js';
import { linesJson } from './logs.js';
import { write } from './rows.js';

/**
 * Batches of running steps' log lines in the `log_batches` table, one row per batch, its lines as
 * JSON bytes; a finished log made of them (`logs.batches`) keeps them where they are. The (step, batch) primary key turns a batch sent twice into a unique violation, which
 * `append` reports as "already stored" instead of an error.
 */
export class SqlLogBatchStore implements LogBatchStore {
  readonly #db: Kysely<Tables>;
  readonly #adapter: DialectAdapter;

  constructor({ db, adapter }: Connection) {
    this.#db = db;
    this.#adapter = adapter;
  }

  async append(stepId: number, batch: number, lines: readonly LogLine[], json?: string): Promise<boolean> {
    const data = Buffer.from(json ?? linesJson(lines), 'utf8');
    try {
      await write(
        this.#adapter,
        () =>
          this.#db
            .insertInto('log_batches')
            .values({ step_id: stepId, batch, data, created: Date.now() })
            .execute(),
        { missing: `step ${stepId}` },
      );
      return true;
    } catch (error) {
      if (this.#adapter.isUniqueViolation(error)) return false;
      throw error;
    }
  }

  async list(stepId: number): Promise<LogLine[]> {
    const rows = await this.#db
      .selectFrom('log_batches')
      .select(['batch', 'data'])
      .where('step_id', '=', stepId)
      .where(notKept(stepId))
      .orderBy('batch')
      .execute();
    return rows.flatMap((row) => parseBatch(row.data, stepId, Number(row.batch)));
  }

  async after(stepId: number, batch: number): Promise<{ batch: number; lines: LogLine[] }[]> {
    const rows = await this.#db
      .selectFrom('log_batches')
      .select(['batch', 'data'])
      .where('step_id', '=', stepId)
      .where('batch', '>', batch)
      .orderBy('batch')
      .execute();
    return rows.map((row) => {
      const number = Number(row.batch);
      return { batch: number, lines: parseBatch(row.data, stepId, number) };
    });
  }

  /**
   * The stored JSON of the step's batches (each a JSON array of lines), as they are, without
   * reading them into lines: batches `from` … `count` − 1 in order — undefined unless every one of
   * batches 0 … `count` − 1 is stored — and, apart, any numbered `count` or more.
   */
  async json(
    stepId: number,
    count: number,
    from = 0,
  ): Promise<{ batches: Buffer[]; later: Buffer[] } | undefined> {
    const rows = await this.#db
      .selectFrom('log_batches')
      .select(['batch', 'data'])
      .where('step_id', '=', stepId)
      .where('batch', '>=', Math.max(0, from))
      .orderBy('batch')
      .execute();
    const batches = rows.filter((row) => Number(row.batch) < count);
    const first = Math.max(0, Math.min(from, count));
    if (batches.length !== count - first || batches.some((row, i) => Number(row.batch) !== first + i)) {
      return undefined;
    }
    if (first > 0 && !(await storedBatches(this.#db, stepId, first))) return undefined;
    return {
      batches: batches.map((row) => row.data),
      later: rows.filter((row) => Number(row.batch) >= count).map((row) => row.data),
    };
  }

  async delete(stepId: number): Promise<void> {
    await this.#db.deleteFrom('log_batches').where('step_id', '=', stepId).where(notKept(stepId)).execute();
  }
}

/**
 * Batches of the step that its finished log is not made of: those numbered from the log's `batches`
 * on (all of them while the step runs, or when its log was stored whole).
 */
function notKept(stepId: number): RawBuilder<boolean> {
  return sql<boolean>`batch >= ${keptBatches(stepId)}`;
}

/** How many of the step's batches (0 … n − 1) its finished log is made of: `logs.batches`, or 0. */
export function keptBatches(stepId: number): RawBuilder<number> {
  return sql<number>`coalesce((select max(batches) from logs where step_id = ${stepId}), 0)`;
}

/** The lines of a stored batch; its objects are checked in place rather than copied. */
function parseBatch(data: Buffer, stepId: number, batch: number): LogLine[] {
  const value: unknown = JSON.parse(data.toString('utf8'));
  const malformed = (): SvcError =>
    new SvcError('INTERNAL', `log batch ${batch} of step ${stepId} holds malformed JSON in the database`);
  if (!Array.isArray(value)) throw malformed();
  for (const item of value as unknown[]) {
    const line = item as Partial<Record<keyof LogLine, unknown>> | null;
    if (typeof line?.pos !== 'number' || typeof line.out !== 'string' || typeof line.time !== 'number') {
      throw malformed();
    }
  }
  return value as LogLine[];
}

/** Whether batches 0 … count − 1 of the step are all stored (numbers are unique and not negative). */
export async function storedBatches(db: Kysely<Tables>, stepId: number, count: number): Promise<boolean> {
  const found = await db
    .selectFrom('log_batches')
    .select((eb) => eb.fn.countAll<number | string | bigint>().as('n'))
    .where('step_id', '=', stepId)
    .where('batch', '>=', 0)
    .where('batch', '<', count)
    .executeTakeFirstOrThrow();
  return Number(found.n) === count;
}
