import type { Logger } from 'pino';
import {
  loadSettings,
  type DockerRunnerSettings,
  type KubernetesRunnerSettings,
  type NomadRunnerSettings,
  type SshRunnerSettings,
  type VmRunnerSettings,
} from '../config/index.js';
import { InvalidSettingsError } from '../core/errors.js';
import { RUNNER_KINDS, type RunnerKind } from '../core/runner.js';
import type { Poller } from '../runner/poller/index.js';
import type { RemoteStageRunner } from '../runner/remote/index.js';
import { startRunnerListener } from '../runner/remote/listener.js';
import type { DashboardOptions } from '../runner/remote/dashboard.js';
import { HeldEntries } from '../platform/metrics/held-entries.js';
import { ProcessGauges } from '../platform/metrics/process-gauges.js';
import type { CreatedRunner } from './runner/common.js';
import type { CommandIO } from './io.js';
import { parseListenAddress } from './listen-address.js';
import { createLogger } from './logger.js';
import { readVersion } from './version.js';

type Env = Record<string, string | undefined>;

const USAGE = `Usage: svc runner <kind>
       svc runner docker --stage <id>

Runs a runner that takes stages from the svc server (SVC_RPC_HOST) and executes them, with the
settings of the SVC_* environment variables (docs/runners.md, docs/settings.md).
Kinds: docker (the Docker engine of DOCKER_HOST), ssh (type: ssh pipelines, on the hosts they name),
vm (type: macstadium pipelines, a VM per stage on an Orka host), nomad (type: docker pipelines, a
Nomad batch job per stage, NOMAD_ADDR/NOMAD_TOKEN), kubernetes (type: kubernetes pipelines, a pod
per stage; KUBECONFIG, ~/.kube/config or the pod's service account).
SIGINT/SIGTERM stop it: no new stage is taken, running ones finish (a second signal cancels them).
With --stage, the docker runner runs the one stage given, which a runner of another kind accepted
(the nomad runner's jobs do this), and exits: 0 when it ran and was reported, 1 otherwise;
SIGINT/SIGTERM cancel it.
`;

/**
 * How long running stages may take to finish after SIGINT/SIGTERM, then to report their end once
 * cancelled. The stop timeouts of deploy/ (compose, Kubernetes, systemd) cover both; a test checks it.
 */
export const STOP_GRACE_MS = 15 * 60_000;
export const STOP_REPORT_MS = 60_000;

/**
 * Composition root of `svc runner <kind>`: settings → logger → RPC client → the kind's engine (leftovers
 * of earlier runs removed: containers, VMs, pods, Nomad jobs; ssh: host keys) → health listener →
 * polling loops, until SIGINT/SIGTERM. Exit 0 after a graceful stop, 1 when the engine or the
 * listener cannot start, 2 for usage and settings errors (every problem on stderr).
 */
export async function runnerCommand(args: readonly string[], env: Env, io: CommandIO): Promise<number> {
  const [kind, ...more] = args;
  if (kind === '--help' || kind === '-h' || more.includes('--help') || more.includes('-h')) {
    io.stdout(USAGE);
    return 0;
  }
  const { stage, rest } = stageOption(more);
  if (stage !== undefined && (kind !== 'docker' || Number.isNaN(stage))) {
    io.stderr(
      Number.isNaN(stage)
        ? `svc runner: --stage needs a stage id (a positive integer)\n`
        : `svc runner: --stage is an option of svc runner docker only\n`,
    );
    return 2;
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
  const loaded = load(kind as RunnerKind, env, io);
  if (loaded === undefined) return 2;
  const { settings } = loaded;
  const level = settings.SVC_TRACE === true ? 'trace' : settings.SVC_DEBUG === true ? 'debug' : 'info';
  const logger = createLogger({ level, pretty: process.stderr.isTTY });
  for (const warning of loaded.warnings) logger.warn(`${warning.setting}: ${warning.message}`);
  // Each kind loads only its own engine: the docker runner's start-up does not pay for the Kubernetes
  // client (~300 modules) or ssh2 (bench/analysis.md, "startup").
  if (loaded.kind === 'ssh') {
    const { createSshRunner } = await import('./runner/ssh-runner.js');
    return serve('ssh', await createSshRunner(loaded.settings, logger), settings, io, logger);
  }
  if (loaded.kind === 'vm' || loaded.kind === 'nomad' || loaded.kind === 'kubernetes') {
    const created =
      loaded.kind === 'vm'
        ? await (await import('./runner/vm-runner.js')).createVmRunner(loaded.settings, logger)
        : loaded.kind === 'nomad'
          ? await (await import('./runner/nomad-runner.js')).createNomadRunner(loaded.settings, env, logger)
          : await (
              await import('./runner/kubernetes-runner.js')
            ).createKubernetesRunner(loaded.settings, env, logger);
    if ('failure' in created) {
      io.stderr(`${created.failure}\n`);
      return created.code;
    }
    return serve(loaded.kind, created, settings, io, logger);
  }
  const { createDockerRunner } = await import('./runner/docker-runner.js');
  const created = await createDockerRunner(loaded.settings, env, logger, { stage });
  if ('failure' in created) {
    io.stderr(`${created.failure}\n`);
    return created.code;
  }
  if (stage !== undefined) return await runOneStage(created.stages, stage, logger);
  return serve('docker', created, settings, io, logger);
}

/** `--stage ID` out of the arguments: undefined when absent, NaN when its value is not an id. */
function stageOption(args: readonly string[]): { stage: number | undefined; rest: string[] } {
  const rest = [...args];
  const at = rest.findIndex((arg) => arg === '--stage' || arg.startsWith('--stage='));
  if (at < 0) return { stage: undefined, rest };
  const arg = rest[at] ?? '';
  const inline = arg.startsWith('--stage=');
  const value = inline ? arg.slice('--stage='.length) : rest[at + 1];
  rest.splice(at, inline ? 1 : 2);
  const stage = value !== undefined && /^[1-9]\d*$/.test(value) ? Number(value) : Number.NaN;
  return { stage, rest };
}

/** Runs one accepted stage; SIGINT/SIGTERM cancel it (Nomad stops a job's task with SIGTERM). */
async function runOneStage(stages: RemoteStageRunner, stageId: number, logger: Logger): Promise<number> {
  const cancel = new AbortController();
  const abandon = new AbortController();
  let count = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    count++;
    logger.warn(`${signal}: ${count === 1 ? 'cancelling the stage' : 'giving up reporting the stage'}`);
    (count === 1 ? cancel : abandon).abort(new Error(`stopped by ${signal}`));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    logger.info(`svc runner docker ${readVersion()} runs stage ${stageId}`);
    const ran = await stages.runAccepted(stageId, { cancel: cancel.signal, abandon: abandon.signal });
    return ran ? 0 : 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

type Loaded =
  | { kind: 'docker'; settings: DockerRunnerSettings; warnings: SettingWarning[] }
  | { kind: 'ssh'; settings: SshRunnerSettings; warnings: SettingWarning[] }
  | { kind: 'vm'; settings: VmRunnerSettings; warnings: SettingWarning[] }
  | { kind: 'nomad'; settings: NomadRunnerSettings; warnings: SettingWarning[] }
  | { kind: 'kubernetes'; settings: KubernetesRunnerSettings; warnings: SettingWarning[] };
type SettingWarning = { setting: string; message: string };

/** The kind's settings; undefined (every problem on stderr) when they are invalid. */
function load(kind: RunnerKind, env: Env, io: CommandIO): Loaded | undefined {
  try {
    if (kind === 'ssh') return { kind, ...loadSettings('ssh', env, { cwd: io.cwd }) };
    if (kind === 'vm') return { kind, ...loadSettings('vm', env, { cwd: io.cwd }) };
    if (kind === 'nomad') return { kind, ...loadSettings('nomad', env, { cwd: io.cwd }) };
    if (kind === 'kubernetes') return { kind, ...loadSettings('kubernetes', env, { cwd: io.cwd }) };
    return { kind, ...loadSettings('docker', env, { cwd: io.cwd }) };
  } catch (error) {
    if (!(error instanceof InvalidSettingsError)) throw error;
    for (const problem of error.problems) io.stderr(`${problem.setting}: ${problem.message}\n`);
    return undefined;
  }
}

/** Listens (health, dashboard), polls until SIGINT/SIGTERM, and stops in order. */
async function serve(
  kind: RunnerKind,
  created: CreatedRunner,
  settings: Pick<SshRunnerSettings, 'SVC_HTTP_BIND' | 'SVC_HTTP_HOST' | 'SVC_HTTP_PROTO'>,
  io: CommandIO,
  logger: Logger,
): Promise<number> {
  const { poller, name, endpoint, platform, labels, capacity, dashboard } = created;
  const bind = parseListenAddress(settings.SVC_HTTP_BIND);
  const gauges = runnerGauges(poller, dashboard);
  let listener;
  try {
    listener = await startRunnerListener({
      ...bind,
      hostName: settings.SVC_HTTP_HOST,
      status: () => ({ running: poller.running, capacity }),
      dashboard,
      metrics: gauges,
    });
  } catch (error) {
    io.stderr(
      `svc runner ${kind}: cannot listen on ${settings.SVC_HTTP_BIND} (SVC_HTTP_BIND): ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return 1;
  }
  poller.start();
  logger.info(
    { labels, capacity: capacity === 0 ? 'no limit' : capacity, platform: `${platform.os}/${platform.arch}` },
    `svc runner ${kind} ${readVersion()} "${name}" takes stages from ${endpoint}; ` +
      `listening on ${settings.SVC_HTTP_PROTO}://${bind.host}:${listener.port}`,
  );
  const signals = stopSignals(poller, logger);
  gauges.process.start();
  try {
    await signals.first;
    await poller.stop({ grace: STOP_GRACE_MS, report: STOP_REPORT_MS });
  } finally {
    signals.dispose();
    gauges.process.stop();
    await listener.close();
  }
  logger.info(`svc runner ${kind} stopped`);
  return 0;
}

/** The runner's gauges for /metrics: its process, its polling loops and its dashboard's board. */
function runnerGauges(
  poller: Poller,
  dashboard: DashboardOptions | undefined,
): { process: ProcessGauges; held: HeldEntries } {
  const held = new HeldEntries();
  held.add('poller', poller);
  if (dashboard !== undefined) held.add('board', dashboard.board);
  return { process: new ProcessGauges(), held };
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
