import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { SystemEvents } from '../../core/events.js';
import type { LiveLogs } from '../../core/live-logs.js';
import type { LogLine } from '../../core/log.js';
import type { QueueSwitch } from '../../core/queue.js';
import type { ScmProvider } from '../../core/scm.js';
import type { Store } from '../../core/store.js';
import type { Authenticator } from '../auth/authenticator.js';
import type { SessionCookies } from '../auth/session-cookies.js';
import { PendingReasons } from '../queue/pending-reasons.js';
import type { HookAddress } from '../web/address.js';
import { findBuildRoute } from './builds/find.js';
import { listBuildsRoute } from './builds/list.js';
import { AccessGuard } from './guard.js';
import { findLogRoute } from './logs/find.js';
import { streamLogRoutes } from './logs/stream.js';
import { NamespaceAccess } from './namespace-access.js';
import { openApiRoute } from './openapi-route.js';
import { queueAdminRoutes } from './queue/index.js';
import { registerRoutes } from './register.js';
import { RepoAccess } from './repo-access.js';
import { RepoSync } from './repo-sync.js';
import { changeRepoRoutes } from './repos/change.js';
import { enableRepoRoute } from './repos/enable.js';
import { findRepoRoute } from './repos/find.js';
import type { ApiRoute } from './route.js';
import { findUserRoute } from './user/find.js';
import { userReposRoutes } from './user/repos.js';
import { userTokenRoute } from './user/token.js';
import { userAdminRoutes } from './users/admin.js';

export { RepoAccess, type Need, type RepoAccessDeps } from './repo-access.js';
export { RepoSync, type RepoSyncDeps, type RepoWithPerm } from './repo-sync.js';
export type { Access, ApiRoute } from './route.js';

/** Everything the JSON API needs, built by the composition root. */
export interface ApiDeps {
  readonly auth: Authenticator;
  /** Re-issues the session cookie when a cookie-authenticated caller rotates its token. */
  readonly sessions: SessionCookies;
  readonly store: Pick<
    Store,
    'users' | 'repos' | 'perms' | 'builds' | 'stages' | 'steps' | 'logs' | 'queue' | 'runners'
  >;
  /** The queue's pause switch (the StageQueue runners poll). */
  readonly queue: QueueSwitch;
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
  /** svc's version, for the OpenAPI document. */
  readonly version?: string;
  /** Told of user and repository changes (global webhooks). */
  readonly events?: SystemEvents;
}

/**
 * The Drone-shaped JSON API under /api (docs/api.md): a table of routes, each declaring who may call
 * it (route.ts), enforced by one guard before the route's code runs. Registered in its own scope so
 * that its answers carry `Cache-Control: no-store` (they are per user and change all the time)
 * without touching other routes. Returns the table (the authorization matrix test walks it).
 */
export function registerApiRoutes(app: FastifyInstance, deps: ApiDeps): readonly ApiRoute[] {
  const { store, provider, auth } = deps;
  const sync =
    provider === undefined
      ? undefined
      : new RepoSync({
          repos: store.repos,
          perms: store.perms,
          provider,
          repositoryFilter: deps.repositoryFilter,
        });
  const access = new RepoAccess({
    repos: store.repos,
    perms: store.perms,
    provider,
    sync,
    logger: deps.logger,
  });
  const reasons = new PendingReasons({ store });
  const guard = new AccessGuard({ auth, repos: access, namespaces: new NamespaceAccess() });
  const routes: ApiRoute[] = [];
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
    routes.push(
      findUserRoute(),
      userTokenRoute({ users: store.users, sessions: deps.sessions }),
      ...userReposRoutes({ repos: store.repos, perms: store.perms, builds: store.builds, sync }),
      findRepoRoute({ access }),
      ...userAdminRoutes({ users: store.users, events: deps.events }),
      ...changeRepoRoutes({
        repos: store.repos,
        users: store.users,
        provider,
        address: deps.address,
        events: deps.events,
      }),
      enableRepoRoute({ access, repos: store.repos, provider, address: deps.address, events: deps.events }),
      listBuildsRoute({ builds: store.builds }),
      findBuildRoute({ builds: store.builds, stages: store.stages, reasons }),
      findLogRoute(store),
      ...streamLogRoutes(api, { ...store, liveLogs: deps.liveLogs, logBatches: deps.logBatches }),
      ...queueAdminRoutes({ store, queue: deps.queue, reasons }),
    );
    routes.push(openApiRoute(routes, deps.version ?? '0.0.0'));
    registerRoutes(api, routes, guard);
    done();
  });
  return routes;
}
