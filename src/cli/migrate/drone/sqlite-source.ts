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
  return {
    description,
    tables: () => {
      const rows = database.prepare("select name from sqlite_master where type = 'table'").all() as {
        name: string;
      }[];
      return Promise.resolve(new Set(rows.map((row) => row.name)));
    },
    select: (query, params = []) => Promise.resolve(database.prepare(query).all(...params) as DroneRow[]),
    close: () => {
      if (database.inTransaction) database.exec('rollback');
      database.close();
      return Promise.resolve();
    },
  };
}
