import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type {
  AroundStep,
  Engine,
  ExecSpec,
  ExecStep,
  OutputSink,
  StepExit,
  StepFiles,
} from '../../core/engine.js';
import { KubeApiError, type KubeApi } from './api.js';
import { podFiles } from './files.js';
import { FilesReady } from './files-ready.js';
import { removeLeftovers } from './leftovers.js';
import { Launcher } from './launcher.js';
import { catchUpLines, followLines } from './logs.js';
import {
  containerName,
  dnsLabel,
  labelValue,
  LIVE_VARIABLES,
  pullSecret,
  stagePod,
  OWNER_LABEL,
  RUN_LABEL,
  stepSecret,
  volumeName,
  type PodNames,
} from './pod-spec.js';
import { movesFiles, stepReach } from './pod-files.js';
import { stepState, type KubePod } from './pod-state.js';
import { stepStarted } from './step-start.js';
import { PodWatcher } from './watcher.js';
import { withAttempts } from './attempts.js';

/** How long an aborted step's start may take to settle before the placeholder takes it back. */
const STOP_SETTLE_MS = 10_000;

/** How long the kubelet may take to stop an aborted step: the pod's 5 s grace, and a margin. */
const STOP_WAIT_MS = 15_000;

export { OWNER_LABEL, RUN_LABEL } from './pod-spec.js';

export interface KubernetesEngineOptions {
  api: KubeApi;
  /** The runner's name (SVC_RUNNER_NAME): the owner label of its pods, secrets and namespaces. */
  owner: string;
  /** SVC_IMAGE_PLACEHOLDER. */
  placeholder: string;
  /**
   * The image of the files container that moves caches and artifacts (SVC_IMAGE_CLONE: the clone
   * image has `sh` and `tar`), in the pods of stages that use them.
   */
  filesImage: string;
  logger: Logger;
  /** How long a step may take to start (pulling, scheduling) before it fails (default 5 minutes). */
  startTimeout?: number;
}

interface Run {
  names: PodNames;
  watcher: PodWatcher;
  launcher: Launcher;
  /** The status variables as the pod's annotations hold them now. */
  written: Record<string, string>;
  /** The scheduler's message, once written to a step's log. */
  told: Set<string>;
  /** Whether the files container runs (asked by the first step that moves files). */
  files?: FilesReady;
  /** The stage as its pod was planned: its steps, then their further attempts' containers. */
  planned: ExecSpec;
}

/**
 * The Engine of `svc runner kubernetes`, on Drone's model: a stage is one pod whose containers are
 * its steps, all created with the placeholder image; a step starts when its container is given the
 * step's image (the kubelet restarts it), and ends with the container (its exit code). Its log is
 * the container's, followed through the API. A step stopped early gets the placeholder back. The
 * pod, its Secrets and a per-stage namespace are deleted at the end.
 */
export class KubernetesEngine implements Engine {
  readonly movesStepFiles = true;
  /** Each attempt a `retry:` may make has a container of the pod from the start (attempts.ts). */
  readonly runsStepsAgain = true;
  readonly #options: KubernetesEngineOptions;
  readonly #runs = new Map<string, Run>();

  constructor(options: KubernetesEngineOptions) {
    this.#options = options;
  }

  async setup(stage: ExecSpec): Promise<void> {
    const { api, owner, placeholder, logger } = this.#options;
    const spec = withAttempts(stage);
    const pod = dnsLabel(`svc-${spec.runId}`);
    const perStage = spec.pod?.perStage === true;
    const namespace = perStage
      ? dnsLabel(`svc-${spec.runId}-${randomBytes(3).toString('hex')}`)
      : (spec.pod?.namespace ?? 'default');
    const labels: Record<string, string> = { ...spec.pod?.labels };
    for (const [key, value] of Object.entries(spec.labels)) labels[key] = labelValue(value);
    labels[OWNER_LABEL] = labelValue(owner);
    labels[RUN_LABEL] = labelValue(spec.runId);
    const needsPull = spec.steps.some((step) => step.auth !== undefined);
    const names: PodNames = {
      pod,
      namespace,
      secret: pod,
      pullSecret: needsPull ? dnsLabel(`${pod}-pull`) : undefined,
      placeholder,
      labels,
      // The files container runs a Linux image: a Windows pod gets none (its moves fail, said below).
      filesImage: movesFiles(spec) && spec.platform.os !== 'windows' ? this.#options.filesImage : undefined,
    };
    const first = spec.steps[0];
    const written = Object.fromEntries(LIVE_VARIABLES.map((name) => [name, first?.envs[name] ?? '']));
    const run: Run = {
      names,
      watcher: new PodWatcher(api, namespace, pod, logger.child({ pod })),
      launcher: new Launcher(api, namespace, pod),
      written,
      told: new Set(),
      planned: spec,
    };
    this.#runs.set(spec.runId, run);
    if (perStage) await api.createNamespace(namespace, labels);
    const pull = pullSecret(spec, names);
    if (pull !== undefined) await api.createSecret(namespace, pull);
    await api.createSecret(namespace, stepSecret(spec, names));
    await api.createPod(namespace, stagePod(spec, names, { ...spec.pod?.annotations, ...written }));
    run.watcher.start();
  }

  async run(
    stage: ExecSpec,
    step: ExecStep,
    output: OutputSink,
    signal?: AbortSignal,
    around?: AroundStep,
  ): Promise<StepExit> {
    const run = this.#runs.get(stage.runId);
    if (run === undefined) throw new Error(`the stage ${stage.runId} was not set up`);
    // Containers are found among the planned steps, further attempts included.
    const spec = run.planned;
    const { api } = this.#options;
    const { names } = run;
    const container = containerName(spec, step);
    const stop = signal ?? new AbortController().signal;
    stop.throwIfAborted();
    // The step's container exists from the pod's start (with the placeholder): its files can be
    // put before its image is, and read after it exited, while the pod lives.
    const files = around === undefined ? undefined : this.#filesOf(run, spec, step);
    if (around !== undefined && files !== undefined) await around.before(files);
    stop.throwIfAborted();
    const changed: Record<string, string> = {};
    for (const name of LIVE_VARIABLES) {
      const value = step.envs[name] ?? '';
      if (run.written[name] !== value) changed[name] = run.written[name] = value;
    }
    await run.launcher.launch(container, step.image, changed);
    let started = false;
    try {
      await stepStarted(
        { watcher: run.watcher, told: run.told, timeout: this.#options.startTimeout ?? 5 * 60_000 },
        container,
        step,
        output,
        stop,
      );
      started = true;
      const logs = followLines(api, names.namespace, names.pod, container, output);
      if (step.detach) {
        logs.catch(() => undefined);
        return { exitCode: 0, oomKilled: false };
      }
      const exited = await run.watcher.until((pod) => {
        const state = stepState(pod, container, step.image);
        return state.kind === 'exited' ? state : undefined;
      }, stop);
      const followed = await logs.catch(() => undefined);
      if (followed !== undefined)
        await catchUpLines(api, names.namespace, names.pod, container, followed, output).catch(
          () => undefined,
        );
      const exit = { exitCode: exited.exitCode, oomKilled: exited.reason === 'OOMKilled' };
      if (around !== undefined && files !== undefined) await around.after(files, exit);
      return exit;
    } catch (error) {
      if (stop.aborted) {
        await this.#stopStep(run, container, step, started);
        throw abortError(stop.reason);
      }
      throw error;
    }
  }

  /**
   * The step's files through the pod's files container. Each move first waits for it to run (as
   * long as a step's start may take: its image may be pulled); one that cannot run fails the
   * moves, which the runner core reports (a cache then does not fail the step).
   */
  #filesOf(run: Run, spec: ExecSpec, step: ExecStep): StepFiles {
    const { names } = run;
    const image = names.filesImage;
    if (image === undefined) {
      const refuse = () =>
        Promise.reject(
          new Error(
            spec.platform.os === 'windows'
              ? 'a Kubernetes pod on Windows nodes cannot move a step’s files yet'
              : `the pod of stage ${spec.runId} has no files container`,
          ),
        );
      return { put: refuse, get: refuse };
    }
    return podFiles(this.#options.api.exec, {
      namespace: names.namespace,
      pod: names.pod,
      step: step.name,
      reach: stepReach(spec, step, volumeName),
      ready: (signal) => {
        run.files ??= new FilesReady(run.watcher, image, this.#options.startTimeout ?? 5 * 60_000);
        return run.files.wait(signal);
      },
    });
  }

  /**
   * Stops an aborted step, and waits for it to be stopped: the caller hears of the abort once the
   * step is dead. The placeholder takes the container back and the kubelet stops the step (SIGTERM,
   * the pod's 5 s grace, SIGKILL). An abort that came while the kubelet may still be acting on the
   * step's image first lets that start settle (bounded): reverted meanwhile, a kubelet already
   * syncing the step's spec would start the step after the caller was told it was stopped.
   */
  async #stopStep(run: Run, container: string, step: ExecStep, started: boolean): Promise<void> {
    const { names } = run;
    const settled = (pod: KubePod) => {
      const kind = stepState(pod, container, step.image).kind;
      return kind === 'running' || kind === 'exited' || kind === 'failed' || kind === 'pulling-failed'
        ? true
        : undefined;
    };
    if (!started)
      await run.watcher.until(settled, AbortSignal.timeout(STOP_SETTLE_MS)).catch(() => undefined);
    await run.launcher.launch(container, names.placeholder, {}).catch(() => undefined);
    const stopped = (pod: KubePod) =>
      stepState(pod, container, step.image).kind === 'running' ? undefined : true;
    await run.watcher.until(stopped, AbortSignal.timeout(STOP_WAIT_MS)).catch(() => undefined);
  }

  async destroy(spec: ExecSpec): Promise<void> {
    const run = this.#runs.get(spec.runId);
    if (run === undefined) return;
    this.#runs.delete(spec.runId);
    const { api, logger } = this.#options;
    const { names } = run;
    const quietly = async (what: string, remove: () => Promise<void>): Promise<void> => {
      try {
        await remove();
      } catch (error) {
        if (!(error instanceof KubeApiError && error.status === 404))
          logger.warn({ err: error }, `cannot delete ${what}`);
      }
    };
    await run.watcher.stop();
    await quietly(`the pod ${names.pod}`, () => api.deletePod(names.namespace, names.pod, 0));
    await quietly(`the secret ${names.secret}`, () => api.deleteSecret(names.namespace, names.secret));
    if (names.pullSecret !== undefined) {
      const pull = names.pullSecret;
      await quietly(`the secret ${pull}`, () => api.deleteSecret(names.namespace, pull));
    }
    if (spec.pod?.perStage === true)
      await quietly(`the namespace ${names.namespace}`, () => api.deleteNamespace(names.namespace));
  }

  /**
   * Deletes what earlier runs of this runner left (it was killed): pods and Secrets labelled with its
   * name in `namespaces`, and its per-stage namespaces. Namespaces it may not list are skipped.
   */
  removeLeftovers(
    namespaces: readonly string[],
  ): Promise<{ pods: string[]; secrets: string[]; namespaces: string[] }> {
    return removeLeftovers(this.#options.api, this.#options.owner, namespaces);
  }
}

function abortError(reason: unknown): Error {
  const error = new Error(reason instanceof Error ? reason.message : 'the step was stopped', {
    cause: reason,
  });
  error.name = 'AbortError';
  return error;
}
