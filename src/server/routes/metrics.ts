import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { BuildStore } from '../../core/build.js';
import { ForbiddenError, InvalidInputError, UnauthorizedError } from '../../core/errors.js';
import type { InsightStore } from '../../core/insights.js';
import type { Store } from '../../core/store.js';
import type { RepoStore } from '../../core/repo.js';
import type { RunnerStore } from '../../core/runner.js';
import type { StageStore } from '../../core/stage.js';
import type { UserStore } from '../../core/user.js';
import type { Authenticator } from '../auth/authenticator.js';
import { gauge } from '../../platform/metrics/exposition.js';
import type { HeldEntries } from '../../platform/metrics/held-entries.js';
import type { ProcessGauges } from '../../platform/metrics/process-gauges.js';
import { processMetrics } from '../../platform/metrics/process-metrics.js';
import { insightMetrics } from '../insights/metrics.js';
import { runnerGauges } from '../queue/runner-gauges.js';

/** What the metrics endpoint reads. */
export interface MetricsDeps {
  readonly auth: Pick<Authenticator, 'identify'>;
  readonly store: {
    users: Pick<UserStore, 'count'>;
    repos: Pick<RepoStore, 'listActive'>;
    builds: Pick<BuildStore, 'count' | 'listIncomplete'>;
    stages: Pick<StageStore, 'listStatus'>;
    insights: Pick<InsightStore, 'totals'>;
    runners: Pick<RunnerStore, 'list'>;
  } & Pick<Store, 'connections'>;
  /** The process's memory, heap, handles and descriptors. */
  readonly process: Pick<ProcessGauges, 'read' | 'collect'>;
  /** The sizes of the server's in-memory maps. */
  readonly held: Pick<HeldEntries, 'read'>;
  /** SVC_METRICS_ANONYMOUS_ACCESS: anyone may read them; otherwise an administrator's token is needed. */
  readonly anonymous: boolean;
}

/** Checks that the request comes from an svc administrator. */
async function requireAdmin(deps: MetricsDeps, request: FastifyRequest, what: string): Promise<void> {
  const principal = await deps.auth.identify(request);
  if (principal === undefined) throw new UnauthorizedError(`${what} need an administrator’s API token`);
  if (!principal.user.admin) throw new ForbiddenError(`${what} are for svc administrators`);
}

/**
 * GET /metrics: gauges in Prometheus' text format — users, enabled repositories, builds (all,
 * pending, running) and stages (pending, running) as Drone's server reports them, the insight
 * rollups' counters and histograms (builds, durations, queue time, runners, caches, tests), runner
 * capacity against the stages running, then the
 * process's own (memory, heap, handles, descriptors, database connections, in-memory maps).
 * Readable by svc administrators (API token or session), or by anyone with
 * SVC_METRICS_ANONYMOUS_ACCESS. `?gc=full` first makes V8 collect all garbage, so that the heap
 * after collection is read now: administrators only, whatever the setting, since it stalls the
 * server for as long as the collection takes.
 */
export function metricsRoute(app: FastifyInstance, deps: MetricsDeps): void {
  app.get('/metrics', async (request, reply) => {
    const { gc } = (request.query ?? {}) as { gc?: unknown };
    if (gc !== undefined && gc !== 'full') throw new InvalidInputError('gc= takes one value: full');
    if (gc === 'full') await requireAdmin(deps, request, 'full collections');
    else if (!deps.anonymous) await requireAdmin(deps, request, 'the metrics');
    const { store } = deps;
    const [users, repos, builds, incomplete, pendingStages, runningStages, totals, runners] =
      await Promise.all([
        store.users.count(),
        store.repos.listActive(),
        store.builds.count(),
        store.builds.listIncomplete(),
        store.stages.listStatus('pending'),
        store.stages.listStatus('running'),
        store.insights.totals(),
        store.runners.list(),
      ]);
    const body = [
      gauge('svc_user_count', 'Total number of users.', users),
      gauge('svc_repo_count', 'Total number of enabled repositories.', repos.length),
      gauge('svc_build_count', 'Total number of builds.', builds),
      gauge(
        'svc_pending_builds',
        'Number of pending builds.',
        incomplete.filter((b) => b.status === 'pending').length,
      ),
      gauge(
        'svc_running_builds',
        'Number of running builds.',
        incomplete.filter((b) => b.status === 'running').length,
      ),
      gauge('svc_pending_jobs', 'Number of pending stages.', pendingStages.length),
      gauge('svc_running_jobs', 'Number of running stages.', runningStages.length),
      insightMetrics(totals),
      runnerGauges(runners, runningStages, Date.now()),
    ].join('');
    if (gc === 'full') deps.process.collect();
    const own = processMetrics(deps.process.read(), deps.held.read(), store.connections());
    return reply
      .type('text/plain; version=0.0.4; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(body + own);
  });
}
