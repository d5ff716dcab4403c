import type { Kysely } from 'kysely';
import { SvcError } from '../../core/errors.js';
import type { LogLine, LogStore } from '../../core/log.js';
import type { Connection, DialectAdapter } from '../dialects/adapter.js';
import type { Tables } from '../tables.js';
import { inTransaction } from '../transaction.js';
import { write } from './rows.js';

/**
 * Finished step logs in the `logs` table: the lines as one JSON document per step, stored as bytes
 * in one row, or in consecutive parts where the dialect caps the size of a statement (MySQL).
 */
export class SqlLogStore implements LogStore {
  readonly #db: Kysely<Tables>;
  readonly #adapter: DialectAdapter;

  constructor({ db, adapter }: Connection) {
    this.#db = db;
    this.#adapter = adapter;
  }

  async find(stepId: number): Promise<LogLine[] | undefined> {
    const parts = await this.#db
      .selectFrom('logs')
      .select('data')
      .where('step_id', '=', stepId)
      .orderBy('part')
      .execute();
    if (parts.length === 0) return undefined;
    const json = Buffer.concat(parts.map((part) => part.data)).toString('utf8');
    return parseLines(json, stepId);
  }

  async create(stepId: number, lines: readonly LogLine[]): Promise<void> {
    const bytes = Buffer.from(
      JSON.stringify(lines.map(({ pos, out, time }) => ({ pos, out, time }))),
      'utf8',
    );
    const size = this.#adapter.maxBlobBytes;
    await write(
      this.#adapter,
      () =>
        inTransaction(this.#db, async (trx) => {
          await trx.deleteFrom('logs').where('step_id', '=', stepId).execute();
          for (let part = 0; part === 0 || part * size < bytes.length; part++) {
            const data = bytes.subarray(part * size, (part + 1) * size);
            await trx.insertInto('logs').values({ step_id: stepId, part, data }).execute();
          }
        }),
      { missing: `step ${stepId}` },
    );
  }

  async delete(stepId: number): Promise<void> {
    await this.#db.deleteFrom('logs').where('step_id', '=', stepId).execute();
  }
}

function parseLines(json: string, stepId: number): LogLine[] {
  const value: unknown = JSON.parse(json);
  if (!Array.isArray(value)) throw malformed(stepId);
  return value.map((item: unknown) => {
    const line = item as Partial<Record<keyof LogLine, unknown>> | null;
    if (typeof line?.pos !== 'number' || typeof line.out !== 'string' || typeof line.time !== 'number') {
      throw malformed(stepId);
    }
    return { pos: line.pos, out: line.out, time: line.time };
  });
}

function malformed(stepId: number): SvcError {
  return new SvcError('INTERNAL', `the log of step ${stepId} holds malformed JSON in the database`);
}
