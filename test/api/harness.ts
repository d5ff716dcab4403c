/*
 * Test support for the server's user-facing routes: a real svc HTTP server on loopback wired like
 * `svc server` wires it (hook, trigger, login, API, status, start page), over a real store and the
 * real GitHub adapter talking to the GitHub double.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import type { Datasource } from '../../src/core/datasource.js';
import type { User } from '../../src/core/user.js';
import type { BuildListener, QueueSignal } from '../../src/core/events.js';
import { InsightRollup } from '../../src/server/insights/rollup.js';
import type { ScmProvider } from '../../src/core/scm.js';
import type { Store } from '../../src/core/store.js';
import { createGitHubProvider } from '../../src/scm/github/index.js';
import { registerApiRoutes, type ApiRoute } from '../../src/server/api/index.js';
import { buildApp } from '../../src/server/app.js';
import { BuildEventHub } from '../../src/server/events/build-events.js';
import { CacheService } from '../../src/server/caches/service.js';
import { ArtifactService } from '../../src/server/artifacts/service.js';
import {
  Authenticator,
  registerAuthRoutes,
  scmTokenOf,
  SessionCookies,
} from '../../src/server/auth/index.js';
import { ApprovalDesk } from '../../src/server/queue/approval-desk.js';
import { hookRoute } from '../../src/server/hook/index.js';
import { noLocalGitRoute } from '../../src/server/local-git/api-routes.js';
import { IdTokenIssuer, OidcKeyring, oidcRoutes } from '../../src/server/oidc/index.js';
import { InMemoryLiveLogs } from '../../src/server/logs/live-logs.js';
import { BuildActions, BuildWatches, StageQueue } from '../../src/server/queue/index.js';
import { registerRpcRoutes } from '../../src/server/rpc/index.js';
import { CommitStatusReporter, StatusPoster } from '../../src/server/status/index.js';
import { Trigger } from '../../src/server/trigger/index.js';
import type { LoginSettings } from '../../src/server/web/index.js';
import { registerWebRoutes, type WebApp } from '../../src/server/web/index.js';
import { DiskBlobStore } from '../../src/store/blobs/disk-blobs.js';
import { openStore } from '../../src/store/index.js';
import { TemplateRenderer } from '../../src/pipeline/templates/index.js';
import { startGitHubDouble, type GitHubDouble } from '../doubles/github/index.js';
import type { TestDatabase, TestDialect } from '../support/databases.js';
import { testDialects } from '../support/databases.js';

/** What a test can change in the wiring. */
export interface HarnessOptions {
  /** Default: SQLite. */
  dialect?: TestDialect;
  /** No git provider at all (login not configured). */
  noProvider?: boolean;
  /** A server that keeps no build caches (the API without its CacheService). */
  noCaches?: boolean;
  /** A server that keeps no artifacts (the API without its ArtifactService). */
  noArtifacts?: boolean;
  registrationClosed?: boolean;
  userFilter?: string[];
  statusDisabled?: boolean;
  proxy?: { proto: 'http' | 'https'; host: string };
  repositoryFilter?: string[];
  /** The built web UI to serve (default: none, as when it was not built). */
  web?: WebApp;
  /** How often an event stream's viewer is asked again (default a minute). */
  streamRecheckMs?: number;
  /** SVC_SERVER_TRUSTED_PROXIES. */
  trustedProxies?: string[];
  /** SVC_DATABASE_SECRET as a 32-byte key: secrets encrypted at rest. */
  secretKey?: Uint8Array;
  /**
   * The database svc opens, made by the test once the GitHub double runs (e.g. one an older svc
   * wrote, naming the double's users and repositories); dropped at close. Default: a fresh one.
   */
  database?: (github: GitHubDouble) => Promise<TestDatabase>;
  /** Jobs' OpenID Connect tokens: SVC_OIDC_KEY_ROTATION, SVC_OIDC_TOKEN_LIFETIME (ms) and the clock. */
  oidc?: { rotation?: number; maxLifetime?: number; now?: () => number };
}

/** A running svc with its collaborators, for one test file. */
export interface Harness {
  /** svc's own address, e.g. http://127.0.0.1:PORT. */
  readonly url: string;
  readonly host: string;
  readonly store: Store;
  /** Where the database is, for tests that look at what is stored at rest. */
  readonly datasource: Datasource;
  readonly github: GitHubDouble;
  readonly provider: ScmProvider | undefined;
  readonly liveLogs: InMemoryLiveLogs;
  readonly queue: { wakes: number };
  /** Every build update the trigger announced, after the status reporter saw it. */
  readonly announced: Parameters<BuildListener['buildUpdated']>[0][];
  /** The fan-out of build changes to the API's event streams; the trigger tells it. */
  readonly buildEvents: BuildEventHub;
  /** The commit status reporter the trigger tells (undefined without a provider). */
  readonly reporter: CommitStatusReporter | undefined;
  readonly app: FastifyInstance;
  /** The API's route table, as registerApiRoutes built it. */
  readonly routes: readonly ApiRoute[];
  /** The keys of jobs' OpenID Connect tokens, as the server's routes use them. */
  readonly keyring: OidcKeyring;
  /** Every route registered on the server, as fastify saw it (method and URL pattern). */
  readonly registered: readonly { method: string; url: string }[];
  /** The build caches the API shows, over `store.caches` and `blobs`. */
  readonly caches: CacheService;
  /** The build artifacts the API shows, over `store.artifacts` and `blobs`. */
  readonly artifacts: ArtifactService;
  /** Approvals and declines, as the API's routes take them (with the double's teams). */
  readonly approvalDesk: ApprovalDesk;
  /** Where the caches' archives and the artifacts' zips are: a folder of its own, removed at close. */
  readonly blobs: DiskBlobStore;
  close(): Promise<void>;
}

const COOKIE_SECRET = 'a-cookie-secret-for-tests-only';
/** The runner protocol's secret (X-SVC-Token), for tests that play a runner. */
export const RPC_SECRET = 'an-rpc-secret-for-tests-only';

/** Starts the GitHub double, a fresh database and svc. */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const dialect = options.dialect ?? sqlite();
  const github = await startGitHubDouble();
  const database = await (options.database?.(github) ?? dialect.create());
  const store = await openStore({ datasource: database.datasource, secretKey: options.secretKey });
  const logger = pino({ level: 'silent' });
  const provider = options.noProvider === true ? undefined : githubProvider(github);
  // The port is known only after listening; everything reads the address when it needs it.
  const address: {
    proto: 'http';
    host: string;
    proxyProto: 'http' | 'https' | null;
    proxyHost: string | null;
  } = {
    proto: 'http',
    host: '',
    proxyProto: options.proxy?.proto ?? null,
    proxyHost: options.proxy?.host ?? null,
  };
  const system = {
    proto: 'http',
    version: '0.0.0-test',
    get host() {
      return address.host;
    },
  };
  const sessions = new SessionCookies({ secret: COOKIE_SECRET, timeoutMs: 3_600_000, secure: false });
  const auth = new Authenticator({ users: store.users, sessions });
  const liveLogs = new InMemoryLiveLogs();
  const queue = {
    wakes: 0,
    wake() {
      this.wakes += 1;
    },
  } satisfies QueueSignal & { wakes: number };
  const announced: Harness['announced'] = [];
  const buildEvents = new BuildEventHub();
  const insightRollup = new InsightRollup({ store, logger });
  const watches = new BuildWatches({ builds: store.builds });
  // Build changes made through the API (cancel, approve) are heard like the trigger's.
  const apiListener: BuildListener = {
    async buildUpdated(change) {
      await buildEvents.buildUpdated(change);
      await reporter?.buildUpdated(change);
      await insightRollup.buildUpdated(change);
      announced.push(change);
    },
  };
  const buildActions = new BuildActions({ store, listener: apiListener, queue, watches, liveLogs, logger });
  const teams = provider?.teams?.bind(provider);
  const approvalDesk = new ApprovalDesk({
    store,
    actions: buildActions,
    ...(teams === undefined ? {} : { teamsOf: (user: User) => teams(scmTokenOf(user)) }),
  });
  const app = buildApp({
    logger,
    version: '0.0.0-test',
    schemaVersion: store.schemaVersion,
    health: store,
    trustedProxies: options.trustedProxies ?? [],
  });
  // As svc server without the built-in git provider answers the UI's question whether it is there;
  // like the provider's own routes, outside the API's route table (registered before it is watched).
  noLocalGitRoute(app);
  const registered: { method: string; url: string }[] = [];
  app.addHook('onRoute', (options) => {
    for (const method of [options.method].flat()) registered.push({ method, url: options.url });
  });
  registerWebRoutes(app, {
    version: '0.0.0-test',
    settings: loginSettings(address, options),
    auth,
    web: options.web,
  });
  registerAuthRoutes(app, {
    provider,
    users: store.users,
    sessions,
    admission: {
      registrationClosed: options.registrationClosed ?? false,
      userFilter: options.userFilter ?? [],
    },
    server: address,
  });
  const oidc = {
    rotation: options.oidc?.rotation ?? 7 * 24 * 3_600_000,
    maxLifetime: options.oidc?.maxLifetime ?? 3_600_000,
    now: options.oidc?.now,
  };
  const keyring = new OidcKeyring({ keys: store.oidcKeys, ...oidc });
  const issuer = () => `http://${address.host}`;
  oidcRoutes(app, { keyring, issuer, now: oidc.now });
  // What runners poll through the RPC routes; the queue administration pauses and resumes it.
  const stageQueue = new StageQueue({ store });
  let reporter: CommitStatusReporter | undefined;
  let trigger: Trigger | undefined;
  if (provider !== undefined) {
    reporter = new CommitStatusReporter({
      provider,
      users: store.users,
      tests: store.testReports,
      status: { disabled: options.statusDisabled ?? false, name: 'continuous-integration/svc' },
      address,
      logger,
      // As the server does: statuses the provider does not take are kept in the outbox.
      poster: new StatusPoster({
        provider,
        users: store.users,
        keep: { outbox: store.statusOutbox, repos: store.repos },
        logger,
      }),
    });
    const listener: BuildListener = {
      async buildUpdated(change) {
        await buildEvents.buildUpdated(change);
        await reporter?.buildUpdated(change);
        await insightRollup.buildUpdated(change);
        announced.push(change);
      },
    };
    trigger = new Trigger({
      store,
      provider,
      queue,
      listener,
      system,
      logger,
      cancel: (build, by, cancelOptions) => buildActions.cancel(build, by, cancelOptions),
      // YAML templates (Jsonnet and Starlark ones have tests of their own).
      templates: { renderer: new TemplateRenderer({ evaluators: {} }), store: store.templates },
    });
    hookRoute(app, { repos: store.repos, provider, trigger, deliveries: store.hookDeliveries });
    // The runner protocol, so that tests can move builds along as a runner does (/rpc/v2/…).
    registerRpcRoutes(app, {
      store,
      listener,
      liveLogs,
      secret: RPC_SECRET,
      system,
      logger,
      queue: stageQueue,
      watches: new BuildWatches({ builds: store.builds }),
      netrcFor: () => Promise.resolve(undefined),
      idTokens: new IdTokenIssuer({ keyring, issuer, maxLifetime: oidc.maxLifetime, now: oidc.now }),
    });
  }
  const blobFolder = mkdtempSync(join(tmpdir(), 'svc-harness-blobs-'));
  const blobs = new DiskBlobStore(blobFolder);
  const caches = new CacheService({
    store: store.caches,
    blobs,
    limits: { maxSize: 10 * 1024 ** 3, maxAge: 30 * 86_400_000 },
  });
  const artifacts = new ArtifactService({
    store: store.artifacts,
    blobs,
    limits: { maxSize: 10 * 1024 ** 3, maxAge: 30 * 86_400_000 },
  });
  const routes = registerApiRoutes(app, {
    auth,
    sessions,
    store,
    provider,
    trigger,
    queue: stageQueue,
    liveLogs,
    logBatches: store.logBatches,
    address,
    repositoryFilter: options.repositoryFilter ?? [],
    logger,
    buildActions,
    approvalDesk,
    buildEvents,
    ...(options.noCaches === true ? {} : { caches }),
    ...(options.noArtifacts === true ? {} : { artifacts }),
    ...(options.streamRecheckMs === undefined ? {} : { streamRecheckMs: options.streamRecheckMs }),
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const bound = app.server.address();
  if (bound === null || typeof bound === 'string') throw new Error('svc is not listening on a port');
  address.host = `127.0.0.1:${bound.port}`;
  return {
    url: `http://${address.host}`,
    host: address.host,
    store,
    datasource: database.datasource,
    github,
    approvalDesk,
    provider,
    liveLogs,
    queue,
    announced,
    buildEvents,
    reporter,
    app,
    routes,
    keyring,
    registered,
    caches,
    artifacts,
    blobs,
    async close() {
      await app.close();
      await github.close();
      await store.close();
      await database.drop();
      rmSync(blobFolder, { recursive: true, force: true });
    },
  };
}

function sqlite(): TestDialect {
  const [first] = testDialects();
  if (first === undefined) throw new Error('no SQLite dialect');
  return first;
}

function githubProvider(github: GitHubDouble): ScmProvider {
  return createGitHubProvider({
    clientId: github.clientId,
    clientSecret: github.clientSecret,
    scopes: ['repo', 'repo:status', 'user:email', 'read:org'],
    server: github.url,
    apiUrl: github.apiUrl,
    skipVerify: false,
    gitAlwaysAuth: false,
    gitUsername: null,
    gitPassword: null,
  });
}

function loginSettings(address: { proto: 'http'; host: string }, options: HarnessOptions): LoginSettings {
  return {
    SVC_SERVER_PROTO: address.proto,
    get SVC_SERVER_HOST() {
      return address.host;
    },
    SVC_SCMA_CLIENT_ID: null,
    SVC_SCMB_CLIENT_ID: null,
    SVC_SCMB_SERVER: null,
    SVC_SCMC_CLIENT_ID: options.noProvider === true ? null : 'Iv1.test',
    SVC_SCMC_SERVER: 'https://github.com',
    SVC_SCMD_CLIENT_ID: null,
    SVC_SCMD_SERVER: 'https://gitlab.com',
    SVC_SCME_SERVER: null,
    SVC_SCMF_CONSUMER_KEY: null,
    SVC_SCMF_SERVER: null,
    SVC_SCML_ENABLED: false,
  };
}

/** Polls until `check` returns a value (not undefined), or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 5_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
