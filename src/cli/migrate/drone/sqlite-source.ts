import Database from 'better-sqlite3';
import type { DroneDatabase, DroneRow } from './database.js';

/**
 * Drone's SQLite file, opened read-only (SQLite itself refuses every write) inside one read
 * transaction, so that every read sees the same state even if Drone still runs.
 */
export function openSqliteSource(path: string, description: string): DroneDatabase {
  const database = new Database(path, { readonly: true, fileMustExist: true });
  try {
    database.exec('begin');
    // The first read is where "file is not a database" shows.
    database.prepare('select count(*) from sqlite_master').get();
  } catch (error) {
    database.close();
    throw error;
  }
  // Async like the other products' readers: a failing statement rejects instead of throwing.
  return {
    description,
    // eslint-disable-next-line @typescript-eslint/require-await
    tables: async () => {
      const rows = database.prepare("select name from sqlite_master where type = 'table'").all() as {
        name: string;
      }[];
      return new Set(rows.map((row) => row.name));
    },
    // eslint-disable-next-line @typescript-eslint/require-await
    select: async (query, params = []) => database.prepare(query).all(...params) as DroneRow[],
    close: () => {
      if (database.inTransaction) database.exec('rollback');
      database.close();
      return Promise.resolve();
    },
  };
}
