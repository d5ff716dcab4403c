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
import { CommitBuilds, Rebuilds, type Trigger } from '../trigger/index.js';
import { PendingReasons } from '../queue/pending-reasons.js';
import type { HookAddress } from '../web/address.js';
import { ApprovalDesk } from '../queue/approval-desk.js';
import { environmentRoutes } from './environments/routes.js';
import type { BuildActions } from '../queue/build-actions.js';
import { buildActionRoutes } from './builds/actions.js';
import type { BuildEventSource } from '../events/build-events.js';
import type { CacheService } from '../caches/service.js';
import { testRoutes } from './tests/index.js';
import { insightRoutes } from './insights/index.js';
import { artifactRoutes, type ArtifactReader } from './artifacts/index.js';
import { badgeRoutes } from './badges/badges.js';
import { createBuildRoute } from './builds/create.js';
import { latestBuildRoutes } from './builds/latest.js';
import { rebuildRoutes } from './builds/rebuild.js';
import { findBuildRoute } from './builds/find.js';
import { purgeBuildsRoute } from './builds/purge.js';
import { listBuildsRoute } from './builds/list.js';
import { eventStreamRoutes } from './events/stream.js';
import { cacheRoutes } from './caches/index.js';
import { cronRoutes } from './crons/index.js';
import { AccessGuard } from './guard.js';
import { deleteLogRoute } from './logs/delete.js';
import type { WriteAccess } from './logs/debug-shell-mask.js';
import { findLogRoute } from './logs/find.js';
import { streamLogRoutes } from './logs/stream.js';
import { NamespaceAccess, providerMembership } from './namespace-access.js';
import { openApiRoute } from './openapi-route.js';
import { queueAdminRoutes } from './queue/index.js';
import { registerRoutes } from './register.js';
import { RepoAccess } from './repo-access.js';
import { RepoSync } from './repo-sync.js';
import { allReposRoute } from './repos/all.js';
import { changeRepoRoutes } from './repos/change.js';
import { chownRepoRoute } from './repos/chown.js';
import { enableRepoRoute } from './repos/enable.js';
import { findRepoRoute } from './repos/find.js';
import { repairRepoRoute } from './repos/repair.js';
import { yamlHelperRoutes } from './repos/yaml-helpers.js';
import type { ApiRoute } from './route.js';
import { userBuildsRoutes } from './user/builds.js';
import { secretRoutes } from './secrets/index.js';
import { templateRoutes } from './templates/index.js';
import { findUserRoute } from './user/find.js';
import { userReposRoutes } from './user/repos.js';
import { userTokenRoute } from './user/token.js';
import { updateUserRoute } from './user/update.js';
import { userAdminRoutes } from './users/admin.js';

export { RepoAccess, type Need, type RepoAccessDeps } from './repo-access.js';
export { RepoSync, type RepoSyncDeps } from './repo-sync.js';
export type { Access, ApiRoute } from './route.js';

/** Everything the JSON API needs, built by the composition root. */
export interface ApiDeps {
  readonly auth: Authenticator;
  /** How often a stream's viewer is asked again (default a minute); tests shorten it. */
  readonly streamRecheckMs?: number;
  /** Re-issues the session cookie when a cookie-authenticated caller rotates its token. */
  readonly sessions: SessionCookies;
  readonly store: Pick<
    Store,
    | 'users'
    | 'repos'
    | 'perms'
    | 'builds'
    | 'stages'
    | 'steps'
    | 'logs'
    | 'secrets'
    | 'crons'
    | 'queue'
    | 'runners'
    | 'runnerTokens'
    | 'environments'
    | 'approvals'
    | 'templates'
    | 'testReports'
    | 'insights'
  >;
  /** The queue's pause switch (the StageQueue runners poll). */
  readonly queue: QueueSwitch;
  /** Undefined when no git provider is configured: no sync, no enabling, stored permissions only. */
  readonly provider: ScmProvider | undefined;
  /** Creates custom and cron builds; undefined without a git provider (then those routes refuse). */
  readonly trigger?: Pick<Trigger, 'create'> | undefined;
  readonly liveLogs: LiveLogs;
  /** Lines of running steps stored so far (Store.logBatches), for viewers who join late. */
  readonly logBatches?: { list(stepId: number): Promise<readonly LogLine[]> };
  /** The public address and webhook proxy (SVC_SERVER_*), for the webhooks svc creates. */
  readonly address: HookAddress;
  /** SVC_REPOSITORY_FILTER. */
  readonly repositoryFilter: readonly string[];
  readonly logger: Logger;
  /** Cancels, approves and declines builds (the scheduler's side of those acts). */
  readonly buildActions: BuildActions;
  /** Records approvals (with the provider's teams); by default one without teams over buildActions. */
  readonly approvalDesk?: ApprovalDesk;
  /** svc's version, for the OpenAPI document. */
  readonly version?: string;
  /** Told of user and repository changes (global webhooks). */
  readonly events?: SystemEvents;
  /** Build changes on this server, for the event streams (GET /api/stream…). */
  readonly buildEvents: BuildEventSource;
  /** Steps' build caches (docs/caches.md); without it the cache routes answer 404. */
  readonly caches?: Pick<CacheService, 'list' | 'remove'> | undefined;
  /** Steps' uploaded artifacts (docs/artifacts.md); without it the artifact routes answer 404. */
  readonly artifacts?: ArtifactReader | undefined;
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
  const canWrite: WriteAccess = async (repo, principal) =>
    principal !== undefined && (await access.rights(repo, principal)).write;
  const reasons = new PendingReasons({ store });
  const commitBuilds =
    provider === undefined || deps.trigger === undefined
      ? undefined
      : new CommitBuilds({ users: store.users, provider, trigger: deps.trigger });
  const rebuilds = deps.trigger === undefined ? undefined : new Rebuilds({ store, trigger: deps.trigger });
  const namespaces = new NamespaceAccess(providerMembership(provider));
  const guard = new AccessGuard({ auth, repos: access, namespaces });
  const routes: ApiRoute[] = [];
  void app.register((api, _options, done) => {
    // Every state-changing API request resolves its caller up front, so the CSRF check cannot be
    // skipped by a handler that forgets to authenticate before acting.
    api.addHook('preHandler', async (request) => {
      if (!['GET', 'HEAD', 'OPTIONS'].includes(request.method)) await auth.identify(request);
    });
    api.addHook('onSend', (_request, reply, payload, next) => {
      // Routes with their own caching rule (badges) set it themselves.
      if (!reply.hasHeader('cache-control')) void reply.header('cache-control', 'no-store');
      next(null, payload);
    });
    routes.push(
      findUserRoute(),
      userTokenRoute({ users: store.users, sessions: deps.sessions }),
      ...userReposRoutes({ repos: store.repos, builds: store.builds, sync }),
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
      ...buildActionRoutes({
        builds: store.builds,
        stages: store.stages,
        actions: deps.buildActions,
        desk: deps.approvalDesk ?? new ApprovalDesk({ store, actions: deps.buildActions }),
        approvals: store.approvals,
      }),
      ...environmentRoutes({ environments: store.environments, users: store.users, provider }),
      purgeBuildsRoute({ builds: store.builds, logs: store.logs }),
      createBuildRoute({ builds: commitBuilds }),
      ...rebuildRoutes({ builds: store.builds, rebuilds }),
      ...latestBuildRoutes({ builds: store.builds, stages: store.stages }),
      ...cronRoutes({ crons: store.crons, builds: commitBuilds }),
      findLogRoute({ ...store, canWrite }),
      deleteLogRoute(store),
      ...artifactRoutes({ builds: store.builds, stages: store.stages, artifacts: deps.artifacts }),
      ...testRoutes({ builds: store.builds, stages: store.stages, tests: store.testReports }),
      ...insightRoutes({ insights: store.insights, tests: store.testReports, repos: store.repos }),
      ...streamLogRoutes(api, { ...store, liveLogs: deps.liveLogs, logBatches: deps.logBatches, canWrite }),
      ...streamsBadgesAndAccountRoutes(api, deps, access),
      ...secretRoutes({ secrets: store.secrets, repos: store.repos }),
      ...templateRoutes({ templates: store.templates, namespaces, repos: store.repos }),
      ...cacheRoutes({ caches: deps.caches }),
      ...yamlHelperRoutes({ repos: store.repos }),
      ...queueAdminRoutes({ store, queue: deps.queue, reasons }),
    );
    routes.push(openApiRoute(routes, deps.version ?? '0.0.0'));
    registerRoutes(api, routes, guard);
    done();
  });
  return routes;
}

/** Event streams, badges, and the account and repository routes of issue 9 §1 that go with them. */
function streamsBadgesAndAccountRoutes(api: FastifyInstance, deps: ApiDeps, access: RepoAccess): ApiRoute[] {
  const { store, events } = deps;
  return [
    ...eventStreamRoutes(api, {
      events: deps.buildEvents,
      access,
      users: store.users,
      ...(deps.streamRecheckMs === undefined ? {} : { recheckMs: deps.streamRecheckMs }),
    }),
    ...badgeRoutes({ builds: store.builds, address: deps.address }),
    updateUserRoute({ users: store.users, events }),
    ...userBuildsRoutes({ builds: store.builds, repos: store.repos, access }),
    allReposRoute({ repos: store.repos }),
    repairRepoRoute({
      access,
      repos: store.repos,
      users: store.users,
      provider: deps.provider,
      address: deps.address,
      events,
    }),
    chownRepoRoute({ access, repos: store.repos, events }),
  ];
}
