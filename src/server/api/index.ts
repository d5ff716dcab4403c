import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { SystemEvents } from '../../core/events.js';
import type { LiveLogs } from '../../core/live-logs.js';
import type { LogLine } from '../../core/log.js';
import type { ScmProvider } from '../../core/scm.js';
import type { Store } from '../../core/store.js';
import type { Authenticator } from '../auth/authenticator.js';
import type { SessionCookies } from '../auth/session-cookies.js';
import type { HookAddress } from '../web/address.js';
import { findBuildRoute } from './builds/find.js';
import { listBuildsRoute } from './builds/list.js';
import { findLogRoute } from './logs/find.js';
import { streamLogRoute } from './logs/stream.js';
import { RepoAccess } from './repo-access.js';
import { RepoSync } from './repo-sync.js';
import { changeRepoRoutes } from './repos/change.js';
import { userAdminRoutes } from './users/admin.js';
import { enableRepoRoute } from './repos/enable.js';
import { findRepoRoute } from './repos/find.js';
import { findUserRoute } from './user/find.js';
import { userReposRoute } from './user/repos.js';
import { userTokenRoute } from './user/token.js';

export { RepoAccess, type Need, type RepoAccessDeps } from './repo-access.js';
export { RepoSync, type RepoSyncDeps, type RepoWithPerm } from './repo-sync.js';

/** Everything the JSON API needs, built by the composition root. */
export interface ApiDeps {
  readonly auth: Authenticator;
  /** Re-issues the session cookie when a cookie-authenticated caller rotates its token. */
  readonly sessions: SessionCookies;
  readonly store: Pick<Store, 'users' | 'repos' | 'perms' | 'builds' | 'stages' | 'steps' | 'logs'>;
  /** Undefined when no git provider is configured: no sync, no enabling, stored permissions only. */
  readonly provider: ScmProvider | undefined;
  readonly liveLogs: LiveLogs;
  /** Lines of running steps stored so far (Store.logBatches), for viewers who join late. */
  readonly logBatches?: { list(stepId: number): Promise<readonly LogLine[]> };
  /** The public address and webhook proxy (SVC_SERVER_*), for the webhooks svc creates. */
  readonly address: HookAddress;
  /** SVC_REPOSITORY_FILTER. */
  readonly repositoryFilter: readonly string[];
  readonly logger: Logger;
  /** Told of user and repository changes (global webhooks). */
  readonly events?: SystemEvents;
}

/**
 * The Drone-shaped JSON API under /api (docs/api.md). Registered in its own scope so that its
 * answers carry `Cache-Control: no-store` (they are per user and change all the time) without
 * touching other routes.
 */
export function registerApiRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const { store, provider, auth } = deps;
  const access = new RepoAccess({ repos: store.repos, perms: store.perms, provider, logger: deps.logger });
  const sync =
    provider === undefined
      ? undefined
      : new RepoSync({
          repos: store.repos,
          perms: store.perms,
          provider,
          repositoryFilter: deps.repositoryFilter,
        });
  const reads = {
    auth,
    access,
    builds: store.builds,
    stages: store.stages,
    steps: store.steps,
    logs: store.logs,
  };
  void app.register((api, _options, done) => {
    // Every state-changing API request resolves its caller up front, so the CSRF check cannot be
    // skipped by a handler that forgets to authenticate before acting.
    api.addHook('preHandler', async (request) => {
      if (!['GET', 'HEAD', 'OPTIONS'].includes(request.method)) await auth.identify(request);
    });
    api.addHook('onSend', (_request, reply, payload, next) => {
      void reply.header('cache-control', 'no-store');
      next(null, payload);
    });
    findUserRoute(api, { auth });
    userTokenRoute(api, { auth, users: store.users, sessions: deps.sessions });
    userReposRoute(api, { auth, repos: store.repos, perms: store.perms, builds: store.builds, sync });
    findRepoRoute(api, { auth, access });
    userAdminRoutes(api, {
      auth,
      users: store.users,
      ...(deps.events === undefined ? {} : { events: deps.events }),
    });
    changeRepoRoutes(api, {
      auth,
      access,
      repos: store.repos,
      users: store.users,
      provider,
      address: deps.address,
      ...(deps.events === undefined ? {} : { events: deps.events }),
    });
    enableRepoRoute(api, {
      auth,
      repos: store.repos,
      provider,
      sync,
      address: deps.address,
      ...(deps.events === undefined ? {} : { events: deps.events }),
    });
    listBuildsRoute(api, reads);
    findBuildRoute(api, reads);
    findLogRoute(api, reads);
    streamLogRoute(api, { ...reads, liveLogs: deps.liveLogs, logBatches: deps.logBatches });
    done();
  });
}
