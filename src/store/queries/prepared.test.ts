import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type CompiledQuery,
} from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Tables } from '../tables.js';
import { Prepared } from './prepared.js';

/** A Kysely that compiles PostgreSQL and records what it would send. */
function recording(): { db: Kysely<Tables>; sent: CompiledQuery[] } {
  const sent: CompiledQuery[] = [];
  const db = new Kysely<Tables>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (kysely) => new PostgresIntrospector(kysely),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
    log: (event) => {
      if (event.level === 'query') sent.push(event.query);
    },
  });
  return { db, sent };
}

describe('Prepared', () => {
  it('sends the SQL compiled once with each run its own values, keeping the constants compiled in', async () => {
    const { db, sent } = recording();
    const take = new Prepared<{ id: number; machine: string }, unknown>(db, (v) =>
      db
        .updateTable('stages')
        .set((eb) => ({ machine: v.machine, version: eb('version', '+', 1) }))
        .where('id', '=', v.id)
        .where('status', '=', 'pending'),
    );
    await take.execute({ id: 7, machine: 'a' });
    await take.execute({ machine: 'b', id: 8 });
    expect(sent.map((query) => query.sql)).toEqual([
      'update "stages" set "machine" = $1, "version" = "version" + $2 where "id" = $3 and "status" = $4',
      'update "stages" set "machine" = $1, "version" = "version" + $2 where "id" = $3 and "status" = $4',
    ]);
    expect(sent.map((query) => query.parameters)).toEqual([
      ['a', 1, 7, 'pending'],
      ['b', 1, 8, 'pending'],
    ]);
  });
});
