import { sql } from 'kysely';
import type { Datasource } from '../core/datasource.js';
import type { DatabaseConnections } from '../core/gauges.js';
import type { LogStore } from '../core/log.js';
import type { LogBatchStore } from '../core/log-batch.js';
import type { Store } from '../core/store.js';
import type { Connection } from './dialects/adapter.js';
import { connect } from './dialects/connect.js';
import type { SecretCipher } from './encryption/cipher.js';
import { prepareSecretCipher } from './encryption/prepare.js';
import { migrate } from './migrations/migrator.js';
import { openChannel } from './cluster/index.js';
import type { ClusterChannel } from '../core/cluster.js';
import { SqlLeaseStore } from './queries/leases.js';
import { SqlArtifactStore } from './queries/artifacts.js';
import { SqlBuildStore } from './queries/builds.js';
import { SqlBuildHistoryStore } from './queries/history.js';
import { SqlCacheStore } from './queries/caches.js';
import { SqlCronStore } from './queries/crons.js';
import { SqlHookDeliveryStore } from './queries/hook-deliveries.js';
import { SqlRunnerTokenStore } from './queries/runner-tokens.js';
import { SqlApprovalStore, SqlEnvironmentStore } from './queries/environments.js';
import { SqlLogBatchStore } from './queries/log-batches.js';
import { SqlLogStore } from './queries/logs.js';
import { SqlSigningKeyStore } from './queries/oidc-keys.js';
import { SqlPermStore } from './queries/perms.js';
import { SqlQueueStore } from './queries/queue.js';
import { SqlRepoStore } from './queries/repos.js';
import { SqlRunnerStore } from './queries/runners.js';
import { SqlSecretStore } from './queries/secrets.js';
import { SqlTemplateStore } from './queries/templates.js';
import { SqlTestReportStore } from './queries/test-reports.js';
import { SqlInsightStore } from './queries/insights.js';
import { SqlStageStore } from './queries/stages.js';
import { SqlStatusOutboxStore } from './queries/status-outbox.js';
import { SqlStepStore } from './queries/steps.js';
import { SqlUserStore } from './queries/users.js';

export interface OpenStoreOptions {
  datasource: Datasource;
  /**
   * The SVC_DATABASE_SECRET key (32 bytes, see parseDatabaseSecret); secret values, provider
   * tokens, signing keys and hook secrets are encrypted at rest when given.
   */
  secretKey?: Uint8Array | undefined;
  /** Receives one line per notable step at open (migrations applied, secrets encrypted, lost connections). */
  logger?: ((msg: string) => void) | undefined;
  /** Where finished logs go besides the database (SVC_OBJSTORE_*: an object store over it). */
  logs?: ((database: LogStore, batches: LogBatchStore) => LogStore) | undefined;
}

/**
 * Opens the database of the datasource (SQLite file, MySQL/MariaDB or PostgreSQL) as a Store.
 * At open, under a database-wide lock (so that two processes never migrate at once):
 * 1. the pending migrations are applied, each recorded in the migrations table; a database written
 *    by a newer svc is refused (DATABASE_TOO_NEW) and left untouched;
 * 2. the secret key is checked against the database: encrypted credentials need the key they were
 *    encrypted with (SECRET_KEY_MISSING, SECRET_KEY_WRONG); a key given for the first time encrypts
 *    the existing secrets, provider tokens, signing keys and hook secrets in one transaction (and
 *    values an older svc encrypted are rewritten bound to their rows).
 * A database that cannot be reached is DATABASE_UNAVAILABLE, naming the file or host and port; a
 * datasource parameter svc cannot honour is an InvalidSettingsError for SVC_DATABASE_DATASOURCE.
 */
export async function openStore(options: OpenStoreOptions): Promise<Store> {
  const log = options.logger ?? (() => undefined);
  const connection = await connect(options.datasource, log);
  try {
    const { schemaVersion, cipher } = await connection.adapter.withMigrationLock(
      connection.db,
      async (db) => {
        const version = await migrate(db, connection.adapter, log);
        return { schemaVersion: version, cipher: await prepareSecretCipher(db, options.secretKey, log) };
      },
    );
    const signals = await openChannel(options.datasource, connection, log);
    return new SqlStore(connection, schemaVersion, cipher, options.logs, signals);
  } catch (error) {
    await connection.db.destroy().catch(() => undefined);
    throw error;
  }
}

/** Every resource store over one connection pool. */
class SqlStore implements Store {
  readonly users;
  readonly repos;
  readonly perms;
  readonly builds;
  readonly history;
  readonly stages;
  readonly steps;
  readonly logs: LogStore;
  readonly secrets;
  readonly crons;
  readonly runners;
  readonly logBatches;
  readonly queue;
  readonly statusOutbox;
  readonly hookDeliveries;
  readonly runnerTokens;
  readonly oidcKeys;
  readonly caches;
  readonly artifacts;
  readonly environments;
  readonly approvals;
  readonly templates;
  readonly testReports;
  readonly insights;
  readonly leases;
  readonly signals: ClusterChannel;
  readonly schemaVersion: number;
  readonly #connection: Connection;

  constructor(
    connection: Connection,
    schemaVersion: number,
    cipher: SecretCipher,
    logs: ((database: LogStore, batches: LogBatchStore) => LogStore) | undefined,
    signals: ClusterChannel,
  ) {
    this.#connection = connection;
    this.schemaVersion = schemaVersion;
    this.users = new SqlUserStore(connection, cipher);
    this.repos = new SqlRepoStore(connection, cipher);
    this.perms = new SqlPermStore(connection);
    this.builds = new SqlBuildStore(connection);
    this.history = new SqlBuildHistoryStore(connection);
    this.stages = new SqlStageStore(connection);
    this.steps = new SqlStepStore(connection);
    this.logBatches = new SqlLogBatchStore(connection);
    const database = new SqlLogStore(connection);
    this.logs = logs === undefined ? database : logs(database, this.logBatches);
    this.secrets = new SqlSecretStore(connection, cipher);
    this.crons = new SqlCronStore(connection);
    this.runners = new SqlRunnerStore(connection);
    this.queue = new SqlQueueStore(connection);
    this.statusOutbox = new SqlStatusOutboxStore(connection);
    this.hookDeliveries = new SqlHookDeliveryStore(connection);
    this.runnerTokens = new SqlRunnerTokenStore(connection);
    this.oidcKeys = new SqlSigningKeyStore(connection, cipher);
    this.caches = new SqlCacheStore(connection);
    this.artifacts = new SqlArtifactStore(connection);
    this.environments = new SqlEnvironmentStore(connection);
    this.approvals = new SqlApprovalStore(connection);
    this.templates = new SqlTemplateStore(connection);
    this.testReports = new SqlTestReportStore(connection);
    this.insights = new SqlInsightStore(connection);
    this.leases = new SqlLeaseStore(connection);
    this.signals = signals;
  }

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.#connection.db);
  }

  connections(): DatabaseConnections {
    return this.#connection.connections();
  }

  async close(): Promise<void> {
    await this.signals.close();
    await this.#connection.db.destroy();
  }
}
