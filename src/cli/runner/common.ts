import type { Logger } from 'pino';
import type { DockerRunnerSettings } from '../../config/index.js';
import { RpcClient, type RunnerLimits, type WireFilter } from '../../runner/client/index.js';
import { RpcStageFiles } from '../../runner/client/stage-files.js';
import { Poller } from '../../runner/poller/index.js';
import { RemoteStageRunner, type PrepareSettings } from '../../runner/remote/index.js';
import type { StageExecutor } from '../../runner/index.js';
import type { DashboardOptions } from '../../runner/remote/dashboard.js';
import { StageBoard } from '../../runner/remote/stage-board.js';
import type { RunnerKind } from '../../core/runner.js';
import { readVersion } from '../version.js';

/** What every runner kind shares: the poller and what its listener and start-up line show. */
export interface CreatedRunner {
  readonly poller: Poller;
  readonly name: string;
  readonly endpoint: string;
  readonly platform: { os: string; arch: string };
  readonly labels: Record<string, string>;
  /** SVC_RUNNER_CAPACITY; 0 for no limit. */
  readonly capacity: number;
  readonly dashboard: DashboardOptions | undefined;
}

type ConnectionKeys =
  | 'SVC_RPC_PROTO'
  | 'SVC_RPC_HOST'
  | 'SVC_RPC_SECRET'
  | 'SVC_RPC_SKIP_VERIFY'
  | 'SVC_RPC_DUMP_HTTP'
  | 'SVC_RPC_DUMP_HTTP_BODY';
type DashboardKeys = 'SVC_UI_DISABLED' | 'SVC_UI_USERNAME' | 'SVC_UI_PASSWORD' | 'SVC_UI_REALM';

/** The RPC client of SVC_RPC_* (SVC_RPC_DUMP_HTTP[_BODY] log the exchange), and the server's address. */
export function rpcClientOf(
  settings: Pick<DockerRunnerSettings, ConnectionKeys>,
  logger: Logger,
  runner: string,
): { client: RpcClient; endpoint: string; caches: RpcStageFiles } {
  const endpoint = `${settings.SVC_RPC_PROTO}://${settings.SVC_RPC_HOST}`;
  if (settings.SVC_RPC_SKIP_VERIFY === true)
    logger.warn('SVC_RPC_SKIP_VERIFY: the server’s TLS certificate is not verified');
  const client = new RpcClient({
    endpoint,
    secret: settings.SVC_RPC_SECRET,
    runner,
    skipVerify: settings.SVC_RPC_SKIP_VERIFY === true,
    dump:
      settings.SVC_RPC_DUMP_HTTP === true || settings.SVC_RPC_DUMP_HTTP_BODY === true
        ? {
            sink: (entry, message) => logger.info(entry, message),
            bodies: settings.SVC_RPC_DUMP_HTTP_BODY === true,
          }
        : undefined,
  });
  const caches = new RpcStageFiles({
    endpoint,
    secret: settings.SVC_RPC_SECRET,
    runner,
    skipVerify: settings.SVC_RPC_SKIP_VERIFY === true,
  });
  return { client, endpoint, caches };
}

/** The dashboard (SVC_UI_*): on unless SVC_UI_DISABLED, and only with a password. */
export function dashboardOptions(
  settings: Pick<DockerRunnerSettings, DashboardKeys>,
  runner: string,
): DashboardOptions | undefined {
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

/** The polling loops of a runner: `capacity` of them (0: no limit), each running what it takes. */
export function pollerOf(options: {
  client: RpcClient;
  filter: WireFilter;
  capacity: number;
  stages: RemoteStageRunner;
  logger: Logger;
}): Poller {
  const { client, filter, capacity, stages, logger } = options;
  return new Poller({
    client,
    filter,
    capacity,
    run: (stage, signals) => stages.run(stage, signals),
    logger,
  });
}

/** SVC_LIMIT_*, or undefined when none limits anything. */
export function runnerLimits(
  settings: Pick<DockerRunnerSettings, 'SVC_LIMIT_EVENTS' | 'SVC_LIMIT_REPOS' | 'SVC_LIMIT_TRUSTED'>,
): RunnerLimits | undefined {
  const limits = {
    events: [...(settings.SVC_LIMIT_EVENTS ?? [])],
    repos: [...(settings.SVC_LIMIT_REPOS ?? [])],
    trusted: settings.SVC_LIMIT_TRUSTED === true,
  };
  return limits.events.length === 0 && limits.repos.length === 0 && !limits.trusted ? undefined : limits;
}

/** The runner's stage runner: each stage prepared with `prepare`, run by `executor()` with the server's caches, on the dashboard. */
export function stageRunnerOf(options: {
  client: RpcClient;
  prepare: PrepareSettings;
  executor: () => StageExecutor;
  dashboard: DashboardOptions | undefined;
  logger: Logger;
  /** The server's caches and artifacts (steps' `cache:` and `artifacts:`). */
  caches: RpcStageFiles;
}): RemoteStageRunner {
  const { client, prepare, executor, dashboard, logger, caches } = options;
  return new RemoteStageRunner({
    client,
    executor,
    caches: (stageId) => caches.caches(stageId),
    artifacts: (stageId) => caches.artifacts(stageId),
    settings: prepare,
    logger,
    ...(dashboard === undefined ? {} : { board: dashboard.board }),
  });
}

/**
 * The filter of a runner whose machines are not its own (ssh hosts, VMs, a Nomad or Kubernetes
 * cluster): stages of `type` for any platform and without labels, within SVC_LIMIT_*.
 */
export function anyPlatformFilter(runner: {
  type: string;
  kind: RunnerKind;
  name: string;
  capacity: number;
  maxProcs: number;
  limits: RunnerLimits | undefined;
  /** SVC_RUNNER_LABELS: only pipelines whose node labels match come here. */
  labels?: Readonly<Record<string, string>>;
}): WireFilter {
  return {
    kind: 'pipeline',
    type: runner.type,
    os: '',
    arch: '',
    variant: '',
    kernel: '',
    labels: { ...runner.labels },
    limits: runner.limits,
    // The server answers with the stage taken for this runner: no accept round trip.
    claim: true,
    runner: {
      name: runner.name,
      kind: runner.kind,
      capacity: runner.capacity,
      max_procs: runner.maxProcs,
      version: readVersion(),
    },
  };
}
