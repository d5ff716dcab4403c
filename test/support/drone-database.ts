/*
 * Test support: Drone 2.x databases on each product, made from the schemas of test/fixtures/drone
 * (written from Drone's migrations), for `svc migrate drone` to read. Rows go in as Drone writes them;
 * `fingerprint` digests every row of every table, so a test can prove that nothing was written.
 */
import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createConnection, type Connection } from 'mysql2/promise';
import pg from 'pg';
import type { Datasource } from '../../src/core/datasource.js';
import { datasourceSetting, testDialects } from './databases.js';

const SCHEMAS = join(import.meta.dirname, '../fixtures/drone');

/** A value of a Drone column as a test writes it. */
export type DroneValue = string | number | boolean | Buffer | null;

/** A Drone database that exists until `drop`. */
export interface DroneTestDatabase {
  /** `svc migrate drone --from` and `--from-driver`. */
  readonly from: string;
  readonly driver: 'sqlite3' | 'mysql' | 'postgres';
  insert(table: string, row: Readonly<Record<string, DroneValue>>): Promise<void>;
  /** SHA-256 over every row of every table (and, for SQLite, the file and its neighbours). */
  fingerprint(): Promise<string>;
  drop(): Promise<void>;
}

/** One product Drone runs on; `skip` when its server is missing here (and this is not CI). */
export interface DroneProduct {
  readonly name: 'SQLite' | 'MariaDB' | 'PostgreSQL';
  readonly skip: boolean;
  create(): Promise<DroneTestDatabase>;
}

/** Seals a value as Drone does with DRONE_DATABASE_SECRET: nonce ‖ AES-256-GCM ciphertext ‖ tag. */
export function droneSeal(key: string, plain: string): Buffer {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', Buffer.from(key, 'utf8'), nonce);
  const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return Buffer.concat([nonce, sealed, cipher.getAuthTag()]);
}

/** Drone on SQLite, MariaDB and PostgreSQL. */
export function droneProducts(): DroneProduct[] {
  const [, mariadb, postgres] = testDialects();
  return [
    { name: 'SQLite', skip: false, create: () => Promise.resolve(sqliteDrone()) },
    {
      name: 'MariaDB',
      skip: mariadb?.skip ?? true,
      create: async () => {
        const database = await mariadb!.create();
        return mysqlDrone(database.datasource, () => database.drop());
      },
    },
    {
      name: 'PostgreSQL',
      skip: postgres?.skip ?? true,
      create: async () => {
        const database = await postgres!.create();
        return postgresDrone(database.datasource, () => database.drop());
      },
    },
  ];
}

function schema(file: string): string {
  return readFileSync(join(SCHEMAS, file), 'utf8');
}

function sqliteDrone(): DroneTestDatabase {
  const dir = mkdtempSync(join(tmpdir(), 'drone-sqlite-'));
  const file = join(dir, 'drone.sqlite');
  const database = new Database(file);
  database.exec(schema('sqlite.sql'));
  database.close();
  const write = (run: (db: Database.Database) => void) => {
    const db = new Database(file);
    try {
      run(db);
    } finally {
      db.close();
    }
  };
  return {
    from: file,
    driver: 'sqlite3',
    insert: (table, row) => {
      const columns = Object.keys(row);
      const values = Object.values(row).map((value) => (typeof value === 'boolean' ? Number(value) : value));
      write((db) =>
        db
          .prepare(
            `insert into ${table} (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')})`,
          )
          .run(...values),
      );
      return Promise.resolve();
    },
    fingerprint: () => {
      const digest = createHash('sha256');
      // The files first: a read-only reader leaves no journal, WAL or changed byte behind.
      for (const name of readdirSync(dir).sort()) digest.update(name).update(readFileSync(join(dir, name)));
      const db = new Database(file, { readonly: true });
      try {
        const tables = db
          .prepare("select name from sqlite_master where type = 'table' order by name")
          .all() as {
          name: string;
        }[];
        for (const { name } of tables)
          digest.update(rowsDigest(name, db.prepare(`select * from ${name}`).all()));
      } finally {
        db.close();
      }
      return Promise.resolve(digest.digest('hex'));
    },
    drop: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })),
  };
}

async function mysqlDrone(datasource: Datasource, drop: () => Promise<void>): Promise<DroneTestDatabase> {
  if (datasource.driver !== 'sql_a') throw new Error('a MySQL datasource is expected');
  const connect = () =>
    createConnection({
      host: datasource.host,
      port: datasource.port,
      user: datasource.user,
      password: datasource.password,
      database: datasource.database,
      multipleStatements: true,
    });
  const setup = await connect();
  await setup.query(schema('mysql.sql'));
  await setup.end();
  const session = async <T>(run: (connection: Connection) => Promise<T>): Promise<T> => {
    const connection = await connect();
    try {
      return await run(connection);
    } finally {
      await connection.end();
    }
  };
  return {
    from: datasourceSetting(datasource),
    driver: 'mysql',
    insert: (table, row) =>
      session(async (connection) => {
        await connection.query(`insert into ${table} set ?`, [row]);
      }),
    fingerprint: () =>
      session(async (connection) => {
        const [tables] = await connection.query(
          'select table_name as name from information_schema.tables where table_schema = database() order by 1',
        );
        const digest = createHash('sha256');
        for (const { name } of tables as { name: string }[]) {
          const [rows] = await connection.query(`select * from ${name}`);
          digest.update(rowsDigest(name, rows as unknown[]));
        }
        return digest.digest('hex');
      }),
    drop,
  };
}

async function postgresDrone(datasource: Datasource, drop: () => Promise<void>): Promise<DroneTestDatabase> {
  if (datasource.driver !== 'sql_b') throw new Error('a PostgreSQL datasource is expected');
  const session = async <T>(run: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({
      host: datasource.host,
      port: datasource.port,
      user: datasource.user,
      password: datasource.password,
      database: datasource.database,
    });
    await client.connect();
    try {
      return await run(client);
    } finally {
      await client.end();
    }
  };
  await session((client) => client.query(schema('postgres.sql')));
  return {
    from: datasourceSetting(datasource),
    driver: 'postgres',
    insert: (table, row) =>
      session(async (client) => {
        const columns = Object.keys(row);
        await client.query(
          `insert into ${table} (${columns.join(', ')}) values (${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
          Object.values(row),
        );
      }),
    fingerprint: () =>
      session(async (client) => {
        const tables = await client.query<{ name: string }>(
          'select table_name as name from information_schema.tables where table_schema = current_schema() order by 1',
        );
        const digest = createHash('sha256');
        for (const { name } of tables.rows) {
          digest.update(rowsDigest(name, (await client.query(`select * from ${name}`)).rows));
        }
        // Sequences move on a nextval even when its insert is refused: include them.
        const sequences = await client.query('select sequencename, last_value from pg_sequences order by 1');
        digest.update(rowsDigest('sequences', sequences.rows));
        return digest.digest('hex');
      }),
    drop,
  };
}

/** A table's rows as one string, whatever order the database returned them in. */
function rowsDigest(table: string, rows: readonly unknown[]): string {
  const lines = rows.map((row) =>
    JSON.stringify(row, (_, value: unknown) => (typeof value === 'bigint' ? value.toString() : value)),
  );
  return `${table}\n${lines.sort().join('\n')}\n`;
}
