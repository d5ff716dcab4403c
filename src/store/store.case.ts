/*
 * The store contract: every behaviour of src/core's store interfaces that callers rely on, written
 * once and run on every database (store.test.ts). Each resource gets its own fresh database.
 */
import { artifactsContract } from './cases/artifacts.case.js';
import { buildsContract } from './cases/builds.case.js';
import { cachesContract } from './cases/caches.case.js';
import { clusterContract } from './cases/cluster.case.js';
import { cronsContract } from './cases/crons.case.js';
import { environmentsContract } from './cases/environments.case.js';
import { historyContract } from './cases/history.case.js';
import { hookDeliveriesContract } from './cases/hook-deliveries.case.js';
import { runnerTokensContract } from './cases/runner-tokens.case.js';
import type { OpenFreshStore } from './cases/fixtures.case.js';
import { logBatchesContract } from './cases/log-batches.case.js';
import { logsContract } from './cases/logs.case.js';
import { oidcKeysContract } from './cases/oidc-keys.case.js';
import { permsContract } from './cases/perms.case.js';
import { queueContract } from './cases/queue.case.js';
import { recentBuildsContract } from './cases/recent-builds.case.js';
import { reposContract } from './cases/repos.case.js';
import { runnersContract } from './cases/runners.case.js';
import { secretsContract } from './cases/secrets.case.js';
import { stagesStepsContract } from './cases/stages-steps.case.js';
import { statusOutboxContract } from './cases/status-outbox.case.js';
import { templatesContract } from './cases/templates.case.js';
import { testReportsContract } from './cases/test-reports.case.js';
import { insightsContract } from './cases/insights.case.js';
import { usersContract } from './cases/users.case.js';

export type { OpenFreshStore } from './cases/fixtures.case.js';

/** Declares the contract suite for stores opened by `open`, one fresh database per resource. */
export function storeContract(open: OpenFreshStore): void {
  usersContract(open);
  reposContract(open);
  permsContract(open);
  buildsContract(open);
  recentBuildsContract(open);
  historyContract(open);
  stagesStepsContract(open);
  logsContract(open);
  secretsContract(open);
  cronsContract(open);
  runnersContract(open);
  logBatchesContract(open);
  queueContract(open);
  statusOutboxContract(open);
  hookDeliveriesContract(open);
  runnerTokensContract(open);
  clusterContract(open);
  oidcKeysContract(open);
  cachesContract(open);
  artifactsContract(open);
  environmentsContract(open);
  templatesContract(open);
  testReportsContract(open);
  insightsContract(open);
}

/**
 * The stores whose rows hold credentials (encrypted with SVC_DATABASE_SECRET, bound to their rows),
 * for stores opened with a key: every behaviour holds with the values encrypted.
 */
export function credentialsContract(open: OpenFreshStore): void {
  usersContract(open);
  reposContract(open);
  secretsContract(open);
  oidcKeysContract(open);
}
