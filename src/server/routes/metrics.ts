import type { FastifyInstance } from 'fastify';
import type { BuildStore } from '../../core/build.js';
import { ForbiddenError, UnauthorizedError } from '../../core/errors.js';
import type { RepoStore } from '../../core/repo.js';
import type { StageStore } from '../../core/stage.js';
import type { UserStore } from '../../core/user.js';
import type { Authenticator } from '../auth/authenticator.js';

/** What the metrics endpoint reads. */
export interface MetricsDeps {
  readonly auth: Pick<Authenticator, 'identify'>;
  readonly store: {
    users: Pick<UserStore, 'count'>;
    repos: Pick<RepoStore, 'listActive'>;
    builds: Pick<BuildStore, 'count' | 'listIncomplete'>;
    stages: Pick<StageStore, 'listStatus'>;
  };
  /** SVC_METRICS_ANONYMOUS_ACCESS: anyone may read them; otherwise an administrator's token is needed. */
  readonly anonymous: boolean;
}

/** One gauge in Prometheus' text format. */
function gauge(name: string, help: string, value: number): string {
  return `# HELP ${name} ${help}\n# TYPE ${name} gauge\n${name} ${value}\n`;
}

/**
 * GET /metrics: gauges in Prometheus' text format — users, enabled repositories, builds (all,
 * pending, running) and stages (pending, running) — as Drone's server reports them. Readable by
 * svc administrators (API token or session), or by anyone with SVC_METRICS_ANONYMOUS_ACCESS.
 */
export function metricsRoute(app: FastifyInstance, deps: MetricsDeps): void {
  app.get('/metrics', async (request, reply) => {
    if (!deps.anonymous) {
      const principal = await deps.auth.identify(request);
      if (principal === undefined)
        throw new UnauthorizedError('the metrics need an administrator’s API token');
      if (!principal.user.admin) throw new ForbiddenError('the metrics are for svc administrators');
    }
    const { store } = deps;
    const [users, repos, builds, incomplete, pendingStages, runningStages] = await Promise.all([
      store.users.count(),
      store.repos.listActive(),
      store.builds.count(),
      store.builds.listIncomplete(),
      store.stages.listStatus('pending'),
      store.stages.listStatus('running'),
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
    ].join('');
    return reply
      .type('text/plain; version=0.0.4; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(body);
  });
}
