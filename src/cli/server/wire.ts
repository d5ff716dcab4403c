import { LocalGitProvider } from '../../scm/local/provider.js';
import { registerLocalGitRoutes } from '../../server/local-git/register.js';
import { noLocalGitRoute } from '../../server/local-git/api-routes.js';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { ServerSettings } from '../../config/index.js';
import type { ScmProvider } from '../../core/scm.js';
import type { PipelineLanguages } from '../../pipeline/languages/index.js';
import type { TemplateRenderer } from '../../pipeline/templates/index.js';
import type { Store } from '../../core/store.js';
import { registerApiRoutes } from '../../server/api/index.js';
import { buildApp } from '../../server/app.js';
import { Authenticator, registerAuthRoutes, scmTokenOf, SessionCookies } from '../../server/auth/index.js';
import { BuildEventHub } from '../../server/events/build-events.js';
import { DeliveryPruner, hookRoute } from '../../server/hook/index.js';
import { approvals } from './approvals.js';
import { BuildActions, BuildWatches, StageQueue } from '../../server/queue/index.js';
import { registerRpcRoutes } from '../../server/rpc/index.js';
import { statusOutbox } from '../../server/status/index.js';
import { CronScheduler } from '../../server/cron/index.js';
import { CommitBuilds, Trigger } from '../../server/trigger/index.js';
import { IdTokenIssuer, OidcKeyring, oidcRoutes } from '../../server/oidc/index.js';
import { loadWebApp, registerWebRoutes } from '../../server/web/index.js';
import type { Leadership } from '../../server/cluster/lease-keeper.js';
import { TokenRefresher } from '../../scm/refreshing.js';
import { startupWarnings } from './startup-warnings.js';
import { storedFiles, type CacheStorage } from './stored-files.js';
import { buildListener } from './build-listener.js';
import { insightBackfill } from './insight-backfill.js';
import { clusterParts } from './cluster.js';
import { serverMetrics } from './metrics.js';
import { pipelinePlugins, webhookEvents } from './plugins.js';

/** What the server's parts are made of: settings, the opened store, the git provider (if any). */
export interface ServerWiring {
  settings: ServerSettings;
  store: Store;
  provider: ScmProvider | undefined;
  logger: Logger;
  version: string;
  tls: { cert: Buffer; key: Buffer } | undefined;
  /** Jsonnet and Starlark pipeline files, as the settings enable them. */
  languages?: PipelineLanguages;
  /** Renders `kind: template` documents; without it they are left as they are. */
  templates?: TemplateRenderer;
  /** The in-process runner's own secret (SVC_RUNNER_LOCAL); undefined without one. */
  localRunnerSecret?: string | undefined;
  /** Where caches and artifacts are kept (stored-files.ts); undefined: the server keeps neither. */
  cacheStorage?: CacheStorage | undefined;
}

/**
 * Builds the whole HTTP server: start page, login, API, webhooks and the runner protocol, sharing one
 * queue signal, one live-log fan-out and one build listener (commit statuses). The only place that
 * knows every concrete part of the server.
 */
export function wireServer({
  settings,
  store,
  provider: givenProvider,
  logger,
  version,
  tls,
  languages,
  templates,
  localRunnerSecret,
  cacheStorage,
}: ServerWiring): FastifyInstance {
  // Every part calls the provider with users' stored tokens: expiring ones are refreshed on the way.
  const refresher = givenProvider === undefined ? undefined : new TokenRefresher(givenProvider, store.users);
  const provider = refresher?.provider();
  const address = {
    // Validated as http or https by the settings; narrowed here for the parts that build URLs.
    proto: settings.SVC_SERVER_PROTO === 'https' ? ('https' as const) : ('http' as const),
    host: settings.SVC_SERVER_HOST,
    proxyProto: settings.SVC_SERVER_PROXY_PROTO,
    proxyHost: settings.SVC_SERVER_PROXY_HOST,
  };
  const system = { proto: address.proto, host: address.host, version };
  const app = buildApp({
    logger,
    version,
    schemaVersion: store.schemaVersion,
    health: store,
    tls,
    trustedProxies: settings.SVC_SERVER_TRUSTED_PROXIES ?? [],
  });

  const sessions = new SessionCookies({
    secret: settings.SVC_COOKIE_SECRET,
    timeoutMs: settings.SVC_COOKIE_TIMEOUT,
    secure: settings.SVC_SERVER_PROTO === 'https',
  });
  const auth = new Authenticator({ users: store.users, sessions });
  const gauges = serverMetrics(app, { auth, store, anonymous: settings.SVC_METRICS_ANONYMOUS_ACCESS });
  if (refresher !== undefined) gauges.add('scm_tokens', refresher);
  // Several servers may share the database (PostgreSQL, MySQL): they tell each other what changed.
  const cluster = clusterParts(store, logger, gauges);
  const liveLogs = cluster.liveLogs;
  const queue = new StageQueue({
    store,
    ...(cluster.announceQueue === undefined ? {} : { announce: cluster.announceQueue }),
  });
  gauges.add('stage_queue', { sizes: () => ({ waiting_requests: queue.waiting }) });
  const watches = new BuildWatches({ builds: store.builds });
  const webhooks = webhookEvents(settings, store, system, logger, gauges);
  const buildEvents = new BuildEventHub();
  gauges.add('build_events', buildEvents);
  const announcer = cluster.attach(app, { queue, watches, events: buildEvents });
  // Statuses the provider does not take are kept in the database and posted later, after a restart too.
  const poster =
    provider?.reportsStatus === true && !settings.SVC_STATUS_DISABLED
      ? statusOutbox(app, { provider, store, logger, leader: cluster.leader })
      : undefined;
  const listener = buildListener(
    settings,
    store,
    provider,
    address,
    logger,
    webhooks,
    buildEvents,
    announcer,
    gauges,
    poster,
  );
  insightBackfill(app, store, logger, cluster.leader);
  const buildActions = new BuildActions({ store, listener, queue, watches, liveLogs, logger });
  const approvalDesk = approvals(app, store, provider, buildActions, logger, cluster.leader);
  const files =
    cacheStorage === undefined ? undefined : storedFiles(app, settings, store, cacheStorage, logger);
  const caches = files?.caches;

  registerWebRoutes(app, { version, settings, auth, web: loadWebApp() });
  const admission = {
    registrationClosed: settings.SVC_REGISTRATION_CLOSED ?? false,
    userFilter: settings.SVC_USER_FILTER ?? [],
  };
  registerAuthRoutes(app, {
    provider,
    users: store.users,
    sessions,
    admission,
    server: address,
    ...(webhooks === undefined ? {} : { events: webhooks }),
  });
  if (givenProvider instanceof LocalGitProvider) {
    const setup = registerLocalGitRoutes(app, {
      provider: givenProvider,
      auth,
      users: store.users,
      sessions,
      admission,
      publicUrl: `${address.proto}://${address.host}`,
      ...(webhooks === undefined ? {} : { events: webhooks }),
    });
    if (setup !== undefined)
      logger.warn(
        `SVC_SCML_ENABLED: no account yet. Open ${setup} to make the first one (the link works once).`,
      );
  } else {
    noLocalGitRoute(app);
  }
  const trigger =
    provider === undefined
      ? undefined
      : new Trigger({
          store,
          provider,
          queue,
          listener,
          system,
          logger,
          cancel: (build, by, options) => buildActions.cancel(build, by, options),
          ...pipelinePlugins(settings),
          ...(languages === undefined ? {} : { languages }),
          ...(templates === undefined ? {} : { templates: { renderer: templates, store: store.templates } }),
        });
  registerApiRoutes(app, {
    auth,
    sessions,
    store,
    queue,
    provider,
    trigger,
    liveLogs,
    logBatches: store.logBatches,
    address,
    repositoryFilter: settings.SVC_REPOSITORY_FILTER ?? [],
    logger,
    version,
    buildActions,
    approvalDesk,
    ...(webhooks === undefined ? {} : { events: webhooks }),
    buildEvents,
    ...(caches === undefined ? {} : { caches }),
    ...(files === undefined ? {} : { artifacts: files.artifacts }),
  });
  if (provider !== undefined && trigger !== undefined) {
    hookRoute(app, { repos: store.repos, provider, trigger, deliveries: store.hookDeliveries });
    deliveryPruner(app, store, logger, cluster.leader);
    if (settings.SVC_CRON_DISABLED !== true) {
      cronScheduler(app, settings, store, provider, trigger, logger, cluster.leader);
    }
  }
  for (const warning of startupWarnings(settings, {
    login: provider !== undefined,
    shared: store.signals.shared,
  }))
    logger.warn(warning);
  // Jobs' OpenID Connect tokens: the issuer is the server's public address.
  const keyring = new OidcKeyring({
    keys: store.oidcKeys,
    rotation: settings.SVC_OIDC_KEY_ROTATION,
    maxLifetime: settings.SVC_OIDC_TOKEN_LIFETIME,
  });
  const issuer = () => `${address.proto}://${address.host}`;
  oidcRoutes(app, { keyring, issuer });
  registerRpcRoutes(app, {
    store,
    listener,
    liveLogs,
    secret: settings.SVC_RPC_SECRET,
    sharedSecretDisabled: settings.SVC_RPC_SECRET_DISABLED ?? false,
    internalSecret: localRunnerSecret,
    system,
    logger,
    idTokens: new IdTokenIssuer({ keyring, issuer, maxLifetime: settings.SVC_OIDC_TOKEN_LIFETIME }),
    queue,
    watches,
    caches,
    artifacts: files?.artifacts,
    leader: cluster.leader,
    gauges,
    reaper:
      settings.SVC_CLEANUP_DISABLED === true
        ? undefined
        : {
            interval: settings.SVC_CLEANUP_INTERVAL,
            pendingDeadline: settings.SVC_CLEANUP_DEADLINE_PENDING,
            runningDeadline: settings.SVC_CLEANUP_DEADLINE_RUNNING,
          },
    async netrcFor(repo) {
      if (provider === undefined || refresher === undefined) return undefined;
      const owner = await store.users.find(repo.userId);
      return owner === undefined ? undefined : provider.netrc(await refresher.fresh(scmTokenOf(owner)), repo);
    },
  });
  return app;
}

/** Runs due cron jobs every SVC_CRON_INTERVAL from when the server is ready until it closes. */
function cronScheduler(
  app: FastifyInstance,
  settings: ServerSettings,
  store: Store,
  provider: ScmProvider,
  trigger: Trigger,
  logger: Logger,
  leader: Leadership | undefined,
): void {
  const scheduler = new CronScheduler({
    ...(leader === undefined ? {} : { leader }),
    interval: settings.SVC_CRON_INTERVAL,
    crons: store.crons,
    repos: store.repos,
    builds: new CommitBuilds({ users: store.users, provider, trigger }),
    logger,
  });
  app.addHook('onReady', (done) => {
    scheduler.start();
    done();
  });
  app.addHook('onClose', async () => {
    await scheduler.stop();
  });
}

/** Forgets the webhook deliveries taken over a week ago, from when the server is ready until it closes. */
function deliveryPruner(
  app: FastifyInstance,
  store: Store,
  logger: Logger,
  leader: Leadership | undefined,
): void {
  const pruner = new DeliveryPruner({ deliveries: store.hookDeliveries, logger, leader });
  app.addHook('onReady', (done) => {
    pruner.start();
    done();
  });
  app.addHook('onClose', async () => {
    await pruner.stop();
  });
}
