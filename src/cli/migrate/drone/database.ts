import type { Datasource } from '../../../core/datasource.js';
import { describeDatasource } from './datasource.js';

/** One row of Drone's database: its columns by name, values as the driver reads them. */
export type DroneRow = Readonly<Record<string, unknown>>;

/**
 * Drone's database, opened so that nothing can write to it: SQLite read-only, MySQL and PostgreSQL
 * in one read-only transaction (which also gives every read the same snapshot).
 */
export interface DroneDatabase {
  /** For messages: `the MySQL database db:3306/drone`. */
  readonly description: string;
  /** The names of its tables. */
  tables(): Promise<Set<string>>;
  /** Runs a SELECT whose parameters are written `?`. */
  select(query: string, params?: readonly unknown[]): Promise<DroneRow[]>;
  close(): Promise<void>;
}

/** Drone's database could not be opened or read; the message names it and says why. */
export class DroneDatabaseError extends Error {}

/** Opens Drone's database read-only; DroneDatabaseError when it cannot be reached. */
export async function openDroneDatabase(datasource: Datasource): Promise<DroneDatabase> {
  const description = describeDatasource(datasource);
  try {
    switch (datasource.driver) {
      case 'embedded_sql':
        return (await import('./sqlite-source.js')).openSqliteSource(datasource.path, description);
      case 'sql_a':
        return await (await import('./mysql-source.js')).openMysqlSource(datasource, description);
      case 'sql_b':
        return await (await import('./postgres-source.js')).openPostgresSource(datasource, description);
    }
  } catch (error) {
    if (error instanceof DroneDatabaseError) throw error;
    throw new DroneDatabaseError(`cannot open Drone’s database, ${description}: ${reason(error)}`, {
      cause: error,
    });
  }
}

/** A driver error's own words, for messages. */
export function reason(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return reason(error.errors[0]);
  return error instanceof Error ? error.message : String(error);
}
