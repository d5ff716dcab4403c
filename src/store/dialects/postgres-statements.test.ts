import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { testDialects } from '../../../test/support/databases.js';
import { connect } from './connect.js';

const postgres = testDialects().find((d) => d.name === 'PostgreSQL');

describe.skipIf(postgres?.skip ?? true)('PostgreSQL named statements', () => {
  it('runs a text again as its named statement, and plans it afresh once its table changed', async () => {
    const database = await postgres?.create();
    if (database === undefined) throw new Error('PostgreSQL is not available');
    const { db } = await connect(database.datasource, () => undefined);
    try {
      // One connection, so that the statements are prepared where they run next.
      await db.connection().execute(async (conn) => {
        await sql`create table t (a integer)`.execute(conn);
        await sql`insert into t (a) values (${1})`.execute(conn);
        const read = async () => (await sql`select * from t where a = ${1}`.execute(conn)).rows;
        expect(await read()).toEqual([{ a: 1 }]);
        expect(await read()).toEqual([{ a: 1 }]);
        const { rows } = await sql<{
          n: number;
        }>`select count(*)::int as n from pg_prepared_statements`.execute(conn);
        expect(rows[0]?.n).toBeGreaterThan(0);
        await sql`alter table t add column b integer not null default 2`.execute(conn);
        expect(await read()).toEqual([{ a: 1, b: 2 }]);
        expect(await read()).toEqual([{ a: 1, b: 2 }]);
        // The server forgets the statements (as behind a pooler that switched server connections):
        // the query runs unnamed, and so do the later ones.
        await sql`deallocate all`.execute(conn);
        expect(await read()).toEqual([{ a: 1, b: 2 }]);
        expect(await read()).toEqual([{ a: 1, b: 2 }]);
      });
    } finally {
      await db.destroy();
      await database.drop();
    }
  });
});
