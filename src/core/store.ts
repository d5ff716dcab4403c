import type { ArtifactStore } from './artifact.js';
import type { TestReportStore } from './test-report.js';
import type { InsightStore } from './insights.js';
import type { BuildStore } from './build.js';
import type { BuildHistoryStore } from './build-history.js';
import type { CacheStore } from './cache.js';
import type { ClusterChannel, LeaseStore } from './cluster.js';
import type { CronStore } from './cron.js';
import type { ApprovalStore, EnvironmentStore } from './environment.js';
import type { DatabaseConnections } from './gauges.js';
import type { HookDeliveryStore } from './hook-delivery.js';
import type { RunnerTokenStore } from './runner-token.js';
import type { LogStore } from './log.js';
import type { LogBatchStore } from './log-batch.js';
import type { SigningKeyStore } from './oidc.js';
import type { PermStore } from './perm.js';
import type { QueueStore } from './queue.js';
import type { RepoStore } from './repo.js';
import type { RunnerStore } from './runner.js';
import type { SecretStore } from './secret.js';
import type { StageStore } from './stage.js';
import type { StatusOutboxStore } from './status-outbox.js';
import type { StepStore } from './step.js';
import type { TemplateStore } from './template.js';
import type { UserStore } from './user.js';

/**
 * Every persistent resource of the server, opened on one database.
 * Opening a Store applies pending migrations and checks the secret key; `close` releases connections
 * and stops the cluster signals.
 */
export interface Store {
  readonly users: UserStore;
  readonly repos: RepoStore;
  readonly perms: PermStore;
  readonly builds: BuildStore;
  /** Finished builds brought across from another server (svc migrate drone --history). */
  readonly history: BuildHistoryStore;
  readonly stages: StageStore;
  readonly steps: StepStore;
  readonly logs: LogStore;
  readonly secrets: SecretStore;
  readonly crons: CronStore;
  readonly runners: RunnerStore;
  readonly logBatches: LogBatchStore;
  readonly queue: QueueStore;
  /** Commit statuses the provider did not take yet, posted again later. */
  readonly statusOutbox: StatusOutboxStore;
  /** The webhook deliveries taken lately, so that one sent again makes no second build. */
  readonly hookDeliveries: HookDeliveryStore;
  /** Runners' own credentials (svc runner token create). */
  readonly runnerTokens: RunnerTokenStore;
  /** The keys that sign jobs' OpenID Connect tokens, shared by the servers of the database. */
  readonly oidcKeys: SigningKeyStore;
  /** The index of steps' saved caches (the archives are in a BlobStore). */
  readonly caches: CacheStore;
  /** The index of steps' uploaded artifacts (the zips are in a BlobStore); rows outlive their build. */
  readonly artifacts: ArtifactStore;
  /** Repositories' deployment environments (who approves, which branches deploy). */
  readonly environments: EnvironmentStore;
  /** Decisions on stages waiting for approval, kept with their build. */
  readonly approvals: ApprovalStore;
  /** Pipeline templates of namespaces (kind: template documents load them). */
  readonly templates: TemplateStore;
  /** Tests of repositories and their results per build (docs/test-reports.md). */
  readonly testReports: TestReportStore;
  /** Daily rollups of builds, steps, tests, runners and caches (docs/insights.md). */
  readonly insights: InsightStore;
  /** Leases of the jobs one server of several runs at a time (docs/ha.md). */
  readonly leases: LeaseStore;
  /** Signals to and from the other servers of the database (docs/ha.md). */
  readonly signals: ClusterChannel;
  /** The schema version the database is at after opening. */
  readonly schemaVersion: number;
  /** Resolves when the database answers a trivial query; rejects when it is unreachable. */
  ping(): Promise<void>;
  /** The connections the store holds open now (for /metrics). */
  connections(): DatabaseConnections;
  close(): Promise<void>;
}
