import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { loadSettings, type ServerSettings } from '../config/index.js';
import { DatabaseError, InvalidSettingsError } from '../core/errors.js';
import { parseDatabaseSecret } from '../core/secret-key.js';
import type { ScmProvider } from '../core/scm.js';
import type { LogStore } from '../core/log.js';
import type { LogBatchStore } from '../core/log-batch.js';
import type { Store } from '../core/store.js';
import { seedUser } from '../server/bootstrap/seed-user.js';
import { loginHelp } from '../server/web/index.js';
import { openStore } from '../store/index.js';
import type { ObjectLogStore } from '../store/objects/object-logs.js';
import type { CommandIO } from './io.js';
import { parseListenAddress } from './listen-address.js';
import { withLocalSettings } from './local-settings.js';
import { createLogger } from './logger.js';
import { gitProvider } from './server/provider.js';
import { startLocalRunner } from './server/local-runner.js';
import { pipelineLanguages } from './server/languages.js';
import type { PipelineLanguages } from '../pipeline/languages/index.js';
import type { TemplateRenderer } from '../pipeline/templates/index.js';
import { LocalGitProvider } from '../scm/local/provider.js';
import { bridgeCloneUrl } from './server/local-clone-url.js';
import { claimSqliteFile } from './server/sqlite-claim.js';
import { startTls, type ServerTls } from './server/tls.js';
import { wireServer } from './server/wire.js';
import { cacheStorage } from './server/stored-files.js';
import { readVersion } from './version.js';

const USAGE = `Usage: svc server [--local]

Runs the svc server with the settings of the SVC_* environment variables (docs/settings.md).
  --local   fill unset required settings for a trial on this machine: SVC_SERVER_HOST=localhost:<port>,
            SVC_SERVER_PROTO=http, and an SVC_RPC_SECRET generated once and kept in the data folder
`;

type Env = Record<string, string | undefined>;

/** Composition root of `svc server`: settings → logger → store → HTTP server, until SIGINT/SIGTERM. */
export async function serverCommand(args: readonly string[], env: Env, io: CommandIO): Promise<number> {
  const unknown = args.filter((arg) => arg !== '--local' && arg !== '--help' && arg !== '-h');
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(USAGE);
    return 0;
  }
  if (unknown.length > 0) {
    io.stderr(`svc server: unknown option ${unknown.join(' ')}\n\n${USAGE}`);
    return 2;
  }
  const local = args.includes('--local') ? withLocalSettings(env, io.cwd) : { env, filled: [] };
  let settings: ServerSettings;
  let warnings: { setting: string; message: string }[];
  try {
    ({ settings, warnings } = loadSettings('server', local.env, { cwd: io.cwd }));
  } catch (error) {
    if (!(error instanceof InvalidSettingsError)) throw error;
    for (const problem of error.problems) io.stderr(`${problem.setting}: ${problem.message}\n`);
    return 2;
  }
  // With SVC_TLS_AUTOCERT, HTTPS goes where browsers look for it unless told otherwise.
  if (settings.SVC_TLS_AUTOCERT === true && (local.env.SVC_SERVER_PORT ?? '') === '') {
    settings = { ...settings, SVC_SERVER_PORT: ':443' };
  }
  const logger = createLogger({ level: 'info', pretty: process.stderr.isTTY });
  for (const warning of warnings) logger.warn(`${warning.setting}: ${warning.message}`);
  if (local.filled.length > 0) logger.info(`local trial: filled ${local.filled.join(', ')}`);
  const languages = pipelineLanguages(settings);
  if ('error' in languages) {
    io.stderr(`${languages.error}\n`);
    return 2;
  }
  const chosen = gitProvider(settings, (line) => logger.info(`SVC_SCMA_DEBUG: ${line}`));
  if ('error' in chosen) {
    io.stderr(`${chosen.error}\n`);
    return 2;
  }
  for (const note of chosen.notes) logger.warn(note);
  const datasource = settings.SVC_DATABASE_DATASOURCE;
  const claim =
    datasource.driver === 'embedded_sql' && datasource.path !== ':memory:'
      ? claimSqliteFile(datasource.path, io.cwd)
      : undefined;
  if (claim !== undefined && 'error' in claim) {
    io.stderr(`${claim.error}\n`);
    return 1;
  }
  const tls = await startTls(settings, local.env, io.cwd, logger);
  if (tls !== undefined && 'error' in tls) {
    claim?.release();
    io.stderr(`${tls.error}\n`);
    return tls.exitCode;
  }
  try {
    const store = await openStoreOrReport(settings, logger, io);
    if (!store) return 1;
    try {
      if (settings.SVC_USER_CREATE) {
        const user = await seedUser(store.users, settings.SVC_USER_CREATE);
        logger.info(
          `SVC_USER_CREATE: account ${user.login} ready (admin: ${user.admin}, machine: ${user.machine})`,
        );
      }
      await serveUntilStopped(settings, store, chosen.provider, logger, local.env, {
        tls,
        languages: languages.languages,
        templates: languages.templates,
        cwd: io.cwd,
      });
      return 0;
    } finally {
      await store.close();
    }
  } finally {
    await tls?.stop();
    claim?.release();
  }
}

async function openStoreOrReport(
  settings: ServerSettings,
  logger: Logger,
  io: CommandIO,
): Promise<Store | undefined> {
  let secretKey: Uint8Array | undefined;
  if (settings.SVC_DATABASE_SECRET !== null) {
    const key = parseDatabaseSecret(settings.SVC_DATABASE_SECRET);
    // loadSettings has validated the key already; this only narrows the type.
    if (typeof key === 'string') throw new Error(`SVC_DATABASE_SECRET: ${key}`);
    secretKey = key;
  }
  let objects: ObjectLogStore | undefined;
  const bucket = settings.SVC_OBJSTORE_BUCKET;
  // The S3 client is loaded only when a bucket is set: it costs ~100 ms of start-up otherwise.
  const ObjectLogs =
    bucket === null ? undefined : (await import('../store/objects/object-logs.js')).ObjectLogStore;
  const logs =
    bucket === null || ObjectLogs === undefined
      ? undefined
      : (database: LogStore, batches: LogBatchStore): LogStore =>
          (objects = new ObjectLogs(
            database,
            batches,
            {
              bucket,
              endpoint: settings.SVC_OBJSTORE_ENDPOINT ?? undefined,
              pathStyle: settings.SVC_OBJSTORE_PATH_STYLE === true,
              prefix: settings.SVC_OBJSTORE_PREFIX ?? '',
            },
            (message, error) => logger.error({ err: error }, message),
          ));
  let store: Store;
  try {
    store = await openStore({
      datasource: settings.SVC_DATABASE_DATASOURCE,
      secretKey,
      logger: (message) => logger.info(message),
      logs,
    });
  } catch (error) {
    if (error instanceof InvalidSettingsError) {
      // The driver refused a datasource parameter (an unknown sslmode, say): a settings problem.
      for (const problem of error.problems) io.stderr(`${problem.setting}: ${problem.message}\n`);
      return undefined;
    }
    if (!(error instanceof DatabaseError)) throw error;
    io.stderr(`svc server: ${error.message}\n`);
    return undefined;
  }
  if (objects !== undefined) {
    try {
      await objects.check();
      logger.info(
        `SVC_OBJSTORE_BUCKET: finished logs go to the bucket "${bucket}" as ${objects.key(0).replace(/0$/, '<step id>')}`,
      );
    } catch (error) {
      io.stderr(`${(error as Error).message}\n`);
      await store.close();
      return undefined;
    }
  }
  return store;
}

async function serveUntilStopped(
  settings: ServerSettings,
  store: Store,
  provider: ScmProvider | undefined,
  logger: Logger,
  env: Env,
  {
    tls,
    languages,
    templates,
    cwd,
  }: { tls: ServerTls | undefined; languages: PipelineLanguages; templates: TemplateRenderer; cwd: string },
): Promise<void> {
  const version = readVersion();
  // The in-process runner's own secret: nobody else has it, and it outlives no restart.
  const localRunnerSecret = settings.SVC_RUNNER_LOCAL ? randomBytes(32).toString('hex') : undefined;
  const caches = cacheStorage(settings, cwd);
  const app = wireServer({
    settings,
    store,
    provider,
    logger,
    version,
    tls: tls?.initial,
    languages,
    templates,
    localRunnerSecret,
    cacheStorage: caches,
  });
  logger.info(`steps' caches and artifacts are kept in ${caches.where}`);
  const { host, port } = parseListenAddress(settings.SVC_SERVER_PORT);
  await app.listen({ host, port });
  const address = app.server.address();
  const boundPort = typeof address === 'object' && address ? address.port : port;
  logger.info(
    `svc server ${version} listening on ${tls ? 'https' : 'http'}://${host}:${boundPort}; ` +
      `users reach it at ${settings.SVC_SERVER_PROTO}://${settings.SVC_SERVER_HOST}`,
  );
  logger.info(loginHelp(settings));
  tls?.serve(app.server);
  if (
    provider instanceof LocalGitProvider &&
    settings.SVC_RUNNER_LOCAL &&
    settings.SVC_SCML_CLONE_URL === null
  ) {
    const cloneUrl = await bridgeCloneUrl(env, settings.SVC_SERVER_PROTO, boundPort, logger);
    if (cloneUrl !== undefined) {
      provider.useCloneUrl(cloneUrl);
      logger.info(`SVC_SCML_ENABLED: the local runner's steps clone from ${cloneUrl}/git/…`);
    }
  }
  const localRunner = settings.SVC_RUNNER_LOCAL
    ? await startLocalRunner(localRunnerSecret ?? '', boundPort, env, logger)
    : undefined;
  await new Promise<void>((resolveStop) => {
    const stop = (signal: string): void => {
      logger.info(`${signal}: finishing in-flight requests, then stopping`);
      resolveStop();
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
  // The local runner reports its stages' ends to this server: it stops first.
  await localRunner?.stop();
  await app.close();
}
