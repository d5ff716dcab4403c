import { initialSchema } from './001-initial.js';
import { buildConfig } from './002-build-config.js';
import { logBatches } from './003-log-batches.js';
import { queueIndex } from './004-queue-index.js';
import { repoSettings } from './005-repo-settings.js';
import { queuePause } from './006-queue-pause.js';
import { latestBuilds } from './007-latest-builds.js';
import { cluster } from './008-cluster.js';
import { statusOutbox } from './009-status-outbox.js';
import { logKeptBatches } from './010-log-kept-batches.js';
import { providerIds } from './011-provider-ids.js';
import { secretsAtRest } from './012-secrets-at-rest.js';
import { hookDeliveries } from './013-hook-deliveries.js';
import { runnerTokens } from './014-runner-tokens.js';
import { oidcKeys } from './015-oidc-keys.js';
import { caches } from './016-caches.js';
import { artifacts } from './017-artifacts.js';
import { stepAttempts } from './018-step-attempts.js';
import { buildChangedFiles } from './019-build-changed-files.js';
import { environments } from './020-environments.js';
import { templates } from './021-templates.js';
import { testReports } from './022-test-reports.js';
import { insights } from './023-insights.js';
import { insightTotals } from './024-insight-totals.js';
import type { Migration } from './migration.js';

/** Every migration svc knows, oldest first; append, never edit or reorder. */
export const MIGRATIONS: readonly Migration[] = [
  initialSchema,
  buildConfig,
  logBatches,
  queueIndex,
  repoSettings,
  queuePause,
  latestBuilds,
  cluster,
  statusOutbox,
  logKeptBatches,
  providerIds,
  secretsAtRest,
  hookDeliveries,
  runnerTokens,
  oidcKeys,
  caches,
  artifacts,
  stepAttempts,
  buildChangedFiles,
  environments,
  templates,
  testReports,
  insights,
  insightTotals,
];

/** The schema version this svc writes. */
export const LATEST_VERSION = MIGRATIONS.reduce((latest, m) => Math.max(latest, m.version), 0);
