import pg from 'pg';
import type { Datasource } from '../../../core/datasource.js';
import { InvalidSettingsError } from '../../../core/errors.js';
import { parsePostgresParams, type PostgresParams } from '../../../store/dialects/postgres-params.js';
import { DroneDatabaseError, type DroneDatabase, type DroneRow } from './database.js';

type PostgresDatasource = Extract<Datasource, { driver: 'sql_b' }>;

/**
 * Drone's PostgreSQL database over one connection in a read-only, repeatable-read transaction: the
 * server refuses any write, and every read sees the same snapshot.
 */
export async function openPostgresSource(
  source: PostgresDatasource,
  description: string,
): Promise<DroneDatabase> {
  const params = fromParams(source.params);
  const client = new pg.Client({
    host: source.host,
    port: source.port,
    user: source.user,
    password: source.password,
    database: source.database,
    ssl: params.ssl,
    connectionTimeoutMillis: params.connectTimeoutMs,
    application_name: 'svc migrate drone',
    // Read-only from the first statement on, whatever the transaction says.
    options: ['-c default_transaction_read_only=on', params.options ?? ''].join(' ').trim(),
  });
  // An idle client that loses its server emits 'error'; the next query reports it instead.
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('begin isolation level repeatable read read only');
  } catch (error) {
    await client.end().catch(() => undefined);
    throw error;
  }
  return {
    description,
    async tables() {
      const result = await client.query<{ name: string }>(
        'select table_name as name from information_schema.tables where table_schema = current_schema()',
      );
      return new Set(result.rows.map((row) => row.name));
    },
    async select(query, params = []) {
      let position = 0;
      const numbered = query.replace(/\?/g, () => `$${++position}`);
      return (await client.query(numbered, [...params])).rows as DroneRow[];
    },
    async close() {
      await client.query('rollback').catch(() => undefined);
      await client.end();
    },
  };
}

/** svc's reading of a PostgreSQL datasource's parameters, its complaints addressed to --from. */
function fromParams(params: Record<string, string>): PostgresParams {
  try {
    return parsePostgresParams(params);
  } catch (error) {
    if (!(error instanceof InvalidSettingsError)) throw error;
    throw new DroneDatabaseError(`--from: ${error.problems.map((problem) => problem.message).join('; ')}`);
  }
}
