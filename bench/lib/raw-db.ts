/*
 * A plain driver on svc's database, without svc: better-sqlite3 on the SQLite file, one pg client on
 * PostgreSQL, one mysql2 connection on MariaDB (in ANSI mode: `||` joins text and "x" names a column,
 * so that the seeding SQL is the same text). Benchmarks seed through it and measure the raw SQL of a
 * read against svc's answer.
 */
import Database from 'better-sqlite3';
import { createConnection } from 'mysql2/promise';
import pg from 'pg';
import type { Datasource } from '../../src/core/datasource.js';

export type Row = Record<string, unknown>;

/** One open database, SQLite or PostgreSQL, spoken to in plain SQL. */
export interface RawDb {
  readonly product: 'SQLite' | 'PostgreSQL' | 'MySQL';
  /** One statement with `?` placeholders; its rows (none for a write). */
  all(sql: string, params?: readonly unknown[]): Promise<Row[]>;
  /** Statements without parameters, run one after another. */
  exec(sql: string): Promise<void>;
  /** The plan of one statement as the dialect spells it ($1… on PostgreSQL), one line per node. */
  plan(sql: string, params: readonly unknown[]): Promise<string[]>;
  close(): Promise<void>;
}

/** Opens the datasource's database: a SQLite file, a PostgreSQL or a MariaDB database. */
export async function openRaw(datasource: Datasource): Promise<RawDb> {
  switch (datasource.driver) {
    case 'embedded_sql':
      return sqlite(datasource.path);
    case 'sql_b':
      return postgres(datasource);
    case 'sql_a':
      return mysql(datasource);
  }
}

function sqlite(path: string): RawDb {
  const db = new Database(path);
  // Statements prepared once, as svc's own SQLite dialect does (CachedStatements).
  const prepared = new Map<string, Database.Statement>();
  const statement = (sql: string): Database.Statement => {
    let found = prepared.get(sql);
    if (found === undefined) {
      found = db.prepare(sql);
      prepared.set(sql, found);
    }
    return found;
  };
  return {
    product: 'SQLite',
    all(sql, params = []) {
      const s = statement(sql);
      if (!s.reader) {
        s.run(...params);
        return Promise.resolve([]);
      }
      return Promise.resolve(s.all(...params) as Row[]);
    },
    exec(sql) {
      db.exec(sql);
      return Promise.resolve();
    },
    plan(sql, params) {
      const rows = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[];
      return Promise.resolve(rows.map((row) => row.detail));
    },
    close() {
      db.close();
      return Promise.resolve();
    },
  };
}

async function postgres(datasource: Extract<Datasource, { driver: 'sql_b' }>): Promise<RawDb> {
  const { host, port, user, password, database } = datasource;
  const client = new pg.Client({ host, port, user, password, database });
  await client.connect();
  // Named statements, parsed and planned once, as svc's own PostgreSQL dialect sends them.
  const names = new Map<string, string>();
  return {
    product: 'PostgreSQL',
    async all(sql, params = []) {
      let name = names.get(sql);
      if (name === undefined) {
        name = `raw_${names.size + 1}`;
        names.set(sql, name);
      }
      let n = 0;
      const text = sql.replace(/\?/g, () => `$${++n}`);
      return (await client.query<Row>({ name, text, values: [...params] })).rows;
    },
    async exec(sql) {
      await client.query(sql);
    },
    async plan(sql, params) {
      const result = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (COSTS OFF) ${sql}`, [...params]);
      return result.rows.map((row) => row['QUERY PLAN']);
    },
    close: () => client.end(),
  };
}

async function mysql(datasource: Extract<Datasource, { driver: 'sql_a' }>): Promise<RawDb> {
  const { host, port, user, password, database } = datasource;
  const connection = await createConnection({
    host,
    port,
    user,
    password,
    database,
    multipleStatements: true,
  });
  await connection.query("SET SESSION sql_mode = 'ANSI', SESSION max_recursive_iterations = 100000000");
  return {
    product: 'MySQL',
    async all(sql, params = []) {
      const [rows] = await connection.query(sql, [...params]);
      return Array.isArray(rows) ? (rows as Row[]) : [];
    },
    async exec(sql) {
      await connection.query(sql);
    },
    async plan(sql, params) {
      const [rows] = await connection.query(`EXPLAIN ${sql}`, [...params]);
      return (rows as Row[]).map((row) => JSON.stringify(row));
    },
    close: () => connection.end(),
  };
}
