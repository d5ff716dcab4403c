import { randomBytes } from 'node:crypto';
import type { ClusterChannel } from '../../core/cluster.js';
import type { Datasource } from '../../core/datasource.js';
import type { Connection } from '../dialects/adapter.js';
import { parsePostgresParams } from '../dialects/postgres-params.js';
import { LocalChannel } from './local-channel.js';

/**
 * The channel between the servers of the datasource's database: LISTEN/NOTIFY on PostgreSQL, a
 * polled table on MySQL, none on SQLite (one server). `origin` names this server in its signals.
 */
export async function openChannel(
  datasource: Datasource,
  connection: Connection,
  log: (msg: string) => void,
  origin = randomBytes(8).toString('hex'),
): Promise<ClusterChannel> {
  switch (datasource.driver) {
    case 'embedded_sql':
      return new LocalChannel();
    case 'sql_a': {
      const { TableChannel } = await import('./table-channel.js');
      return new TableChannel(connection.db, origin, log);
    }
    case 'sql_b': {
      const { PostgresChannel } = await import('./postgres-channel.js');
      const params = parsePostgresParams(datasource.params);
      const config = {
        host: datasource.host,
        port: datasource.port,
        user: datasource.user,
        password: datasource.password,
        database: datasource.database,
        ssl: params.ssl,
        connectionTimeoutMillis: params.connectTimeoutMs,
        application_name: params.applicationName,
        ...(params.options === undefined ? {} : { options: params.options }),
      };
      return new PostgresChannel(connection.db, config, origin, log);
    }
  }
}
