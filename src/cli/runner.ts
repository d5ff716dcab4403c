import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { loadSettings, type DockerRunnerSettings } from '../config/index.js';
import { InvalidSettingsError } from '../core/errors.js';
import { RUNNER_KINDS, type RunnerKind } from '../core/runner.js';
import { dockerClient } from '../engines/docker/client.js';
import { DockerEngine } from '../engines/docker/engine.js';
import { DEFAULT_RUNNER_SETTINGS, type RunnerSettings } from '../pipeline/index.js';
import { RpcClient, type RunnerLimits, type WireFilter } from '../runner/client/index.js';
import { StageExecutor } from '../runner/index.js';
import { Poller } from '../runner/poller/index.js';
import { readEnvFile } from '../runner/remote/env-file.js';
import type { DashboardOptions } from '../runner/remote/dashboard.js';
import { startRunnerListener } from '../runner/remote/listener.js';
import { StageBoard } from '../runner/remote/stage-board.js';
import { RemoteStageRunner, type PrepareSettings } from '../runner/remote/index.js';
import { runnerPlugins } from './runner/plugins.js';
import type { CommandIO } from './io.js';
import { parseListenAddress } from './listen-address.js';
import { createLogger } from './logger.js';
import { readVersion } from './version.js';

type Env = Record<string, string | undefined>;

const USAGE = `Usage: svc runner <kind>

Runs a runner that takes stages from the svc server (SVC_RPC_HOST) and executes them, with the
settings of the SVC_* environment variables (docs/runners.md, docs/settings.md).
Kinds: docker (the Docker engine of DOCKER_HOST). nomad, vm, kubernetes and ssh are not available yet.
SIGINT/SIGTERM stop it: no new stage is taken, running ones finish (a second signal cancels them).
`;

/** How long running stages may take to finish after SIGINT/SIGTERM, then to report their end once cancelled. */
const STOP_GRACE_MS = 15 * 60_000;
const STOP_REPORT_MS = 60_000;

/** Settings the docker runner accepts but cannot honour yet: each one set is reported at start. */
const NOT_YET: readonly (keyof DockerRunnerSettings)[] = ['SVC_CONTAINER_CONFIG'];

/**
 * Composition root of `svc runner <kind>`: settings → logger → RPC client → Docker engine (leftovers
 * of earlier runs removed) → health listener → `capacity` polling loops, until SIGINT/SIGTERM.
 * Exit 0 after a graceful stop, 1 when the engine or the listener cannot start, 2 for usage and
 * settings errors (every problem on stderr) and for kinds that are not available yet.
 */
export async function runnerCommand(args: readonly string[], env: Env, io: CommandIO): Promise<number> {
  const [kind, ...rest] = args;
  if (kind === '--help' || kind === '-h' || rest.includes('--help') || rest.includes('-h')) {
    io.stdout(USAGE);
    return 0;
  }
  if (kind === undefined || rest.length > 0) {
    io.stderr(
      `svc runner: ${kind === undefined ? 'which runner?' : `unexpected ${rest.join(' ')}`}\n\n${USAGE}`,
    );
    return 2;
  }
  if (!(RUNNER_KINDS as readonly string[]).includes(kind)) {
    io.stderr(`svc runner: unknown kind "${kind}"; expected one of ${RUNNER_KINDS.join(', ')}\n`);
    return 2;
  }
  if ((kind as RunnerKind) !== 'docker') {
    io.stderr(`svc runner ${kind}: the ${kind} runner is not available yet; svc runner docker is\n`);
    return 2;
  }
  let settings: DockerRunnerSettings;
  let warnings: { setting: string; message: string }[];
  try {
    ({ settings, warnings } = loadSettings('docker', env, { cwd: io.cwd }));
  } catch (error) {
    if (!(error instanceof InvalidSettingsError)) throw error;
    for (const problem of error.problems) io.stderr(`${problem.setting}: ${problem.message}\n`);
    return 2;
  }
  const level = settings.SVC_TRACE === true ? 'trace' : settings.SVC_DEBUG === true ? 'debug' : 'info';
  const logger = createLogger({ level, pretty: process.stderr.isTTY });
  for (const warning of warnings) logger.warn(`${warning.setting}: ${warning.message}`);
  for (const name of NOT_YET) {
    if (settings[name] !== null)
      logger.warn(`${name}: not supported by svc runner docker yet; it has no effect`);
  }
  return runDocker(settings, env, io, logger);
}

async function runDocker(
  settings: DockerRunnerSettings,
  env: Env,
  io: CommandIO,
  logger: Logger,
): Promise<number> {
  const name = settings.SVC_RUNNER_NAME ?? hostname();
  let runner: RunnerSettings;
  try {
    runner = runnerSettings(settings);
  } catch (error) {
    io.stderr(`SVC_RUNNER_ENV_FILE: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  const docker = dockerClient({
    host: env.DOCKER_HOST,
    tlsVerify: env.DOCKER_TLS_VERIFY === '1',
    certPath: env.DOCKER_CERT_PATH,
  });
  const engine = new DockerEngine({ docker, owner: name, streamPull: settings.SVC_CONTAINER_STREAM_PULL });
  let platform: { os: string; arch: string };
  try {
    const version = await docker.version();
    platform = { os: version.Os, arch: version.Arch };
    const leftovers = await engine.removeLeftovers();
    if (leftovers.runs.length > 0)
      logger.info(leftovers, 'removed what earlier runs of this runner left behind');
  } catch (error) {
    io.stderr(
      `svc runner docker: cannot use the Docker engine at ${env.DOCKER_HOST || 'the default socket'}: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return 1;
  }
  const endpoint = `${settings.SVC_RPC_PROTO}://${settings.SVC_RPC_HOST}`;
  if (settings.SVC_RPC_SKIP_VERIFY === true)
    logger.warn('SVC_RPC_SKIP_VERIFY: the server’s TLS certificate is not verified');
  const client = new RpcClient({
    endpoint,
    secret: settings.SVC_RPC_SECRET,
    skipVerify: settings.SVC_RPC_SKIP_VERIFY === true,
    dump:
      settings.SVC_RPC_DUMP_HTTP === true || settings.SVC_RPC_DUMP_HTTP_BODY === true
        ? {
            sink: (entry, message) => logger.info(entry, message),
            bodies: settings.SVC_RPC_DUMP_HTTP_BODY === true,
          }
        : undefined,
  });
  const limits = runnerLimits(settings);
  const prepare: PrepareSettings = {
    machine: name,
    types: ['docker'],
    runner,
    netrcCloneOnly: settings.SVC_NETRC_CLONE_ONLY === true,
    secrets: settings.SVC_RUNNER_SECRETS ?? {},
    limits,
    labels: { 'io.svc.runner': name },
    ...(await runnerPlugins(settings)),
  };
  const dashboard = dashboardOptions(settings, name);
  const stages = new RemoteStageRunner({
    client,
    executor: () => new StageExecutor({ engine, maxProcs: settings.SVC_RUNNER_MAX_PROCS ?? 0 }),
    settings: prepare,
    logger,
    ...(dashboard === undefined ? {} : { board: dashboard.board }),
  });
  const labels = settings.SVC_RUNNER_LABELS ?? {};
  const filter: WireFilter = {
    kind: 'pipeline',
    type: 'docker',
    ...platform,
    variant: '',
    kernel: '',
    labels,
    limits,
    // Who asks: the server registers the runner from it (GET /api/runners, why stages wait).
    runner: {
      name,
      kind: 'docker',
      capacity: settings.SVC_RUNNER_CAPACITY,
      max_procs: settings.SVC_RUNNER_MAX_PROCS ?? 0,
      version: readVersion(),
    },
  };
  const capacity = settings.SVC_RUNNER_CAPACITY;
  const poller = new Poller({
    client,
    filter,
    capacity,
    run: (stage, signals) => stages.run(stage, signals),
    logger,
  });
  const bind = parseListenAddress(settings.SVC_HTTP_BIND);
  let listener;
  try {
    listener = await startRunnerListener({
      ...bind,
      hostName: settings.SVC_HTTP_HOST,
      status: () => ({ running: poller.running, capacity }),
      dashboard,
    });
  } catch (error) {
    io.stderr(
      `svc runner docker: cannot listen on ${settings.SVC_HTTP_BIND} (SVC_HTTP_BIND): ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return 1;
  }
  poller.start();
  logger.info(
    { labels, capacity, platform: `${platform.os}/${platform.arch}` },
    `svc runner docker ${readVersion()} "${name}" takes stages from ${endpoint}; ` +
      `listening on ${settings.SVC_HTTP_PROTO}://${bind.host}:${listener.port}`,
  );
  const signals = stopSignals(poller, logger);
  try {
    await signals.first;
    await poller.stop({ grace: STOP_GRACE_MS, report: STOP_REPORT_MS });
  } finally {
    signals.dispose();
    await listener.close();
  }
  logger.info('svc runner docker stopped');
  return 0;
}

/**
 * SIGINT/SIGTERM handling: `first` resolves at the first signal (stop taking stages, let running
 * ones finish); a second one cancels the running stages at once. `dispose` removes the handlers.
 */
function stopSignals(poller: Poller, logger: Logger): { first: Promise<void>; dispose(): void } {
  const { promise: first, resolve } = Promise.withResolvers<void>();
  let count = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    count++;
    if (count === 1) {
      logger.info(
        `${signal}: taking no new stage; waiting for ${poller.running} running (again to cancel them)`,
      );
      resolve();
      return;
    }
    logger.warn(`${signal} again: cancelling the running stages`);
    poller.cancelRunning();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    first,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

/** The runner's settings that shape every step (SVC_RUNNER_*, limits), as the compiler takes them. */
function runnerSettings(settings: DockerRunnerSettings): RunnerSettings {
  const fromFile = settings.SVC_RUNNER_ENV_FILE === null ? {} : readEnvFile(settings.SVC_RUNNER_ENV_FILE);
  return {
    ...DEFAULT_RUNNER_SETTINGS,
    environ: { ...fromFile, ...settings.SVC_RUNNER_ENVIRON },
    volumes: settings.SVC_RUNNER_VOLUMES ?? [],
    networks: settings.SVC_RUNNER_NETWORKS ?? [],
    privilegedImages: settings.SVC_RUNNER_PRIVILEGED_IMAGES ?? [],
    cloneImage: settings.SVC_RUNNER_CLONE_IMAGE ?? '',
    devices: settings.SVC_RUNNER_DEVICES ?? [],
    limits: {
      memLimit: settings.SVC_MEMORY_LIMIT ?? 0,
      memSwapLimit: settings.SVC_MEMORY_SWAP_LIMIT ?? 0,
      shmSize: 0,
      cpuPeriod: settings.SVC_CPU_PERIOD ?? 0,
      cpuQuota: settings.SVC_CPU_QUOTA ?? 0,
      cpuShares: settings.SVC_CPU_SHARES,
      cpuSet: settings.SVC_CPU_SET ?? [],
    },
  };
}

/** SVC_LIMIT_*, or undefined when none limits anything. */
function runnerLimits(settings: DockerRunnerSettings): RunnerLimits | undefined {
  const limits = {
    events: [...(settings.SVC_LIMIT_EVENTS ?? [])],
    repos: [...(settings.SVC_LIMIT_REPOS ?? [])],
    trusted: settings.SVC_LIMIT_TRUSTED === true,
  };
  return limits.events.length === 0 && limits.repos.length === 0 && !limits.trusted ? undefined : limits;
}

/** The dashboard (SVC_UI_*): on unless SVC_UI_DISABLED, and only with a password. */
function dashboardOptions(settings: DockerRunnerSettings, runner: string): DashboardOptions | undefined {
  const password = settings.SVC_UI_PASSWORD;
  if (settings.SVC_UI_DISABLED === true || password == null || password === '') return undefined;
  return {
    username: settings.SVC_UI_USERNAME ?? '',
    password,
    realm: settings.SVC_UI_REALM ?? 'svc runner',
    board: new StageBoard(),
    runner,
  };
}
