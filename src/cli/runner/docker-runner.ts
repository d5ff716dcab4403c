import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { DockerRunnerSettings } from '../../config/index.js';
import { dockerClient } from '../../engines/docker/client.js';
import type { DockerClient } from '../../engines/docker/api/client.js';
import { DockerEngine } from '../../engines/docker/engine.js';
import { tmateVolume } from '../../engines/docker/tmate-volume.js';
import { DEFAULT_CLONE_IMAGE } from '../../pipeline/compile/clone.js';
import type { ShellShare } from '../../pipeline/compile/debug-shell.js';
import { DEFAULT_RUNNER_SETTINGS, type RunnerSettings } from '../../pipeline/index.js';
import type { WireFilter } from '../../runner/client/index.js';
import { StageExecutor } from '../../runner/index.js';
import { readEnvFile } from '../../runner/remote/env-file.js';
import type { PrepareSettings, RemoteStageRunner } from '../../runner/remote/index.js';
import { readVersion } from '../version.js';
import {
  dashboardOptions,
  pollerOf,
  rpcClientOf,
  runnerLimits,
  stageRunnerOf,
  type CreatedRunner,
} from './common.js';
import { withContainerConfig } from './container-config.js';
import { runnerPlugins } from './plugins.js';

type Env = Record<string, string | undefined>;

/**
 * A Docker runner ready to poll: `poller.start()` runs it, `poller.stop()` ends it; or, for one
 * stage accepted elsewhere (`svc runner docker --stage ID`), `stages.runAccepted(ID)` runs that.
 */
export type DockerRunner = CreatedRunner & { readonly stages: RemoteStageRunner };

/** How this process uses the engine. */
export interface DockerRunnerMode {
  /**
   * The one stage this process runs (the nomad runner's jobs): its containers are owned by
   * `<name>-stage-<id>`, and nothing that other processes on the same engine run is swept.
   */
  stage?: number | undefined;
}

/**
 * The Docker runner of `svc runner docker` (and of `svc server --local`, SVC_RUNNER_LOCAL): the
 * engine (leftovers of earlier runs removed), the RPC client, the stage runner and the poller, not
 * started. A failure says why, with the exit code the command gives: 2 for settings, 1 for the engine.
 */
export async function createDockerRunner(
  settings: DockerRunnerSettings,
  env: Env,
  logger: Logger,
  mode: DockerRunnerMode = {},
): Promise<DockerRunner | { failure: string; code: 1 | 2 }> {
  const name = settings.SVC_RUNNER_NAME ?? hostname();
  // Leftovers are found by owner: a one-stage process owns only what it creates.
  const owner = mode.stage === undefined ? name : `${name}-stage-${mode.stage}`;
  let runner: RunnerSettings;
  try {
    runner = runnerSettings(settings);
  } catch (error) {
    return {
      failure: `SVC_RUNNER_ENV_FILE: ${error instanceof Error ? error.message : String(error)}`,
      code: 2,
    };
  }
  const docker = dockerClient({
    host: env.DOCKER_HOST,
    tlsVerify: env.DOCKER_TLS_VERIFY === '1',
    certPath: env.DOCKER_CERT_PATH,
  });
  const engine = new DockerEngine({ docker, owner, streamPull: settings.SVC_CONTAINER_STREAM_PULL });
  let platform: { os: string; arch: string };
  try {
    const version = await docker.version();
    platform = { os: version.Os, arch: version.Arch };
    if (mode.stage === undefined) {
      const leftovers = await engine.removeLeftovers();
      if (leftovers.runs.length > 0)
        logger.info(leftovers, 'removed what earlier runs of this runner left behind');
    }
  } catch (error) {
    return {
      failure: `svc runner docker: cannot use the Docker engine at ${env.DOCKER_HOST || 'the default socket'}: ${error instanceof Error ? error.message : String(error)}`,
      code: 1,
    };
  }
  if (settings.SVC_SHELLSHARE_ENABLED === true) {
    try {
      runner = { ...runner, shellShare: await shellShareOf(settings, docker) };
    } catch (error) {
      return { failure: `SVC_SHELLSHARE_ENABLED: ${(error as Error).message}`, code: 1 };
    }
    logger.info(
      `SVC_SHELLSHARE_ENABLED: a failing step of a debug build starts a tmate session (relay: ${settings.SVC_SHELLSHARE_HOST ?? "tmate's default"})`,
    );
  }
  const { client, endpoint, caches } = rpcClientOf(settings, logger, name);
  const limits = runnerLimits(settings);
  let plugins;
  try {
    plugins = await runnerPlugins(settings);
    plugins.registryPlugin = withContainerConfig(settings.SVC_CONTAINER_CONFIG, plugins.registryPlugin);
  } catch (error) {
    return { failure: (error as Error).message, code: 2 };
  }
  const prepare: PrepareSettings = {
    machine: name,
    types: ['docker'],
    runner,
    netrcCloneOnly: settings.SVC_NETRC_CLONE_ONLY === true,
    secrets: settings.SVC_RUNNER_SECRETS ?? {},
    limits,
    labels: { 'io.svc.runner': name },
    ...plugins,
  };
  const dashboard = dashboardOptions(settings, name);
  const stages = stageRunnerOf({
    client,
    prepare,
    executor: () => new StageExecutor({ engine, maxProcs: settings.SVC_RUNNER_MAX_PROCS ?? 0 }),
    dashboard,
    logger,
    caches,
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
    // The server answers with the stage taken for this runner: no accept round trip.
    claim: true,
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
  const poller = pollerOf({ client, filter, capacity, stages, logger });
  return { poller, stages, name, endpoint, platform, labels, capacity, dashboard };
}

/** tmate for debug builds: the relay of SVC_SHELLSHARE_* and the volume with svc's tmate bundle. */
async function shellShareOf(settings: DockerRunnerSettings, docker: DockerClient): Promise<ShellShare> {
  return {
    host: settings.SVC_SHELLSHARE_HOST ?? '',
    port: settings.SVC_SHELLSHARE_PORT,
    fingerprintRsa: settings.SVC_SHELLSHARE_FINGERPRINT_RSA ?? '',
    fingerprintEd25519: settings.SVC_SHELLSHARE_FINGERPRINT_ED25519 ?? '',
    // The bundle comes from svc's clone image, also when SVC_RUNNER_CLONE_IMAGE names another one.
    volume: await tmateVolume(docker, DEFAULT_CLONE_IMAGE),
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
