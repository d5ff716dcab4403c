import { sql } from 'kysely';
import type { Datasource } from '../../core/datasource.js';
import type { Connection } from './adapter.js';
import { unavailable } from './errors.js';
import { connectMysql } from './mysql.js';
import { connectPostgres } from './postgres.js';
import { connectSqlite } from './sqlite.js';

/**
 * Opens the datasource's database and checks that it answers. A failure is a DatabaseError with
 * code DATABASE_UNAVAILABLE that names the file or the server, never a driver stack.
 */
export async function connect(datasource: Datasource, log: (msg: string) => void): Promise<Connection> {
  const connection = create(datasource, log);
  try {
    await sql`select 1`.execute(connection.db);
  } catch (error) {
    await connection.db.destroy().catch(() => undefined);
    throw unavailable(failure(datasource, connection.adapter.target), error);
  }
  return connection;
}

function create(datasource: Datasource, log: (msg: string) => void): Connection {
  switch (datasource.driver) {
    case 'embedded_sql':
      return connectSqlite(datasource.path);
    case 'sql_a':
      return connectMysql(datasource);
    case 'sql_b':
      return connectPostgres(datasource, log);
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
