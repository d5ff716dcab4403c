import { sql } from 'kysely';
import type { Datasource } from '../../core/datasource.js';
import { DatabaseError } from '../../core/errors.js';
import type { Connection } from './adapter.js';
import { unavailable } from './errors.js';

/**
 * Opens the datasource's database and checks that it answers. A failure is a DatabaseError with
 * code DATABASE_UNAVAILABLE that names the file or the server, never a driver stack.
 */
export async function connect(datasource: Datasource, log: (msg: string) => void): Promise<Connection> {
  const connection = await create(datasource, log);
  try {
    await sql`select 1`.execute(connection.db);
  } catch (error) {
    await connection.db.destroy().catch(() => undefined);
    // The driver's own reason: at start the message says what could not be opened, in its own words.
    const reason = error instanceof DatabaseError ? error.cause : error;
    throw unavailable(failure(datasource, connection.adapter.target), reason);
  }
  return connection;
}

/**
 * Loads only the driver the datasource needs: each costs megabytes of memory and milliseconds of
 * start-up, and a server uses one database.
 */
async function create(datasource: Datasource, log: (msg: string) => void): Promise<Connection> {
  switch (datasource.driver) {
    case 'embedded_sql':
      return (await import('./sqlite.js')).connectSqlite(datasource.path);
    case 'sql_a':
      return (await import('./mysql.js')).connectMysql(datasource);
    case 'sql_b':
      return (await import('./postgres.js')).connectPostgres(datasource, log);
  }
}

function failure(datasource: Datasource, target: string): string {
  switch (datasource.driver) {
    case 'embedded_sql':
      return `cannot open the SQLite database ${target}`;
    case 'sql_a':
      return `cannot connect to MySQL at ${datasource.host}:${datasource.port} (database ${datasource.database}, user ${datasource.user})`;
    case 'sql_b':
      return `cannot connect to PostgreSQL at ${datasource.host}:${datasource.port} (database ${datasource.database}, user ${datasource.user})`;
  }
}
