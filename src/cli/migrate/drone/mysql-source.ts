import { createConnection } from 'mysql2/promise';
import type { Datasource } from '../../../core/datasource.js';
import { InvalidSettingsError } from '../../../core/errors.js';
import { parseMysqlParams, type MysqlParams } from '../../../store/dialects/mysql-params.js';
import { DroneDatabaseError, type DroneDatabase, type DroneRow } from './database.js';

type MysqlDatasource = Extract<Datasource, { driver: 'sql_a' }>;

/**
 * Drone's MySQL database over one connection whose session and transaction are read-only: the
 * server refuses any write, and the consistent snapshot gives every read the same state.
 */
export async function openMysqlSource(source: MysqlDatasource, description: string): Promise<DroneDatabase> {
  const params = fromParams(source.params);
  const connection = await createConnection({
    host: source.host,
    port: source.port,
    user: source.user,
    password: source.password,
    database: source.database,
    charset: 'UTF8MB4_GENERAL_CI',
    connectTimeout: params.connectTimeoutMs,
    ...(params.ssl === undefined ? {} : { ssl: params.ssl }),
  });
  try {
    for (const [name, value] of params.sessionVariables)
      await connection.query(`set session ${name} = ?`, [value]);
    await connection.query('set session transaction read only');
    await connection.query('start transaction with consistent snapshot, read only');
  } catch (error) {
    await connection.end().catch(() => undefined);
    throw error;
  }
  return {
    description,
    async tables() {
      const [rows] = await connection.query(
        'select table_name as name from information_schema.tables where table_schema = database()',
      );
      return new Set((rows as { name: string }[]).map((row) => row.name));
    },
    async select(query, params = []) {
      const [rows] = await connection.query(query, [...params] as (string | number)[]);
      return rows as DroneRow[];
    },
    async close() {
      await connection.query('rollback').catch(() => undefined);
      await connection.end();
    },
  };
}

/** svc's reading of a MySQL datasource's parameters, its complaints addressed to --from. */
function fromParams(params: Record<string, string>): MysqlParams {
  try {
    return parseMysqlParams(params);
  } catch (error) {
    if (!(error instanceof InvalidSettingsError)) throw error;
    throw new DroneDatabaseError(`--from: ${error.problems.map((problem) => problem.message).join('; ')}`);
  }
}
