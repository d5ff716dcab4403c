import type {
  AroundStep,
  Engine,
  ExecSpec,
  ExecStep,
  OutputSink,
  StepExit,
  StepFiles,
} from '../../core/engine.js';
import type { DockerClient } from './api/client.js';
import { removeMatching, runsMatching, type Removed } from './cleanup.js';
import { containerConfig } from './container-config.js';
import { attachOutput, type LogFollower } from './logs.js';
import { ensureImage } from './pull.js';
import { RunLedger } from './run-ledger.js';
import {
  LABEL_OWNER,
  networkName,
  runFilter,
  runLabels,
  tempVolume,
  usesStageNetwork,
  workspaceVolume,
} from './resources.js';

/** What the composition root hands the Docker engine; nothing is read from the environment. */
export interface DockerEngineOptions {
  /** A client for the Docker Engine API (see `dockerClient`, which honours DOCKER_HOST). */
  docker: DockerClient;
  /**
   * Who owns the resources, as the label `io.svc.owner` (the runner's name): `removeLeftovers`
   * only ever touches resources of the same owner.
   */
  owner: string;
  /** Print image pull progress to the step's output. */
  streamPull?: boolean;
}

/** What `removeLeftovers` removed. */
export interface Leftovers extends Removed {
  /** The runs whose resources were removed. */
  runs: string[];
}

/**
 * The Docker backend. Per run: a bridge network (steps reach each other, services included, by
 * step name), a workspace volume mounted in every step, a Docker volume per disk temp volume
 * (memory ones are tmpfs mounts), and a container per step. Everything carries the labels
 * `io.svc.run=<runId>` and `io.svc.owner=<owner>` plus `spec.labels`, which is how `destroy` and
 * `removeLeftovers` find it.
 */
export class DockerEngine implements Engine {
  readonly movesStepFiles = true;
  readonly runsStepsAgain = true;
  private readonly docker: DockerClient;
  private readonly owner: string;
  private readonly streamPull: boolean;
  /** Runs set up and not yet destroyed, with the log streams of their detached steps. */
  private readonly active = new Map<string, Set<LogFollower>>();
  /** What each run set up and not yet destroyed has created, and is removing. */
  private readonly ledgers = new Map<string, RunLedger>();

  constructor(options: DockerEngineOptions) {
    this.docker = options.docker;
    this.owner = options.owner;
    this.streamPull = options.streamPull ?? false;
  }

  async setup(spec: ExecSpec, signal?: AbortSignal): Promise<void> {
    this.active.set(spec.runId, new Set());
    const ledger = new RunLedger();
    this.ledgers.set(spec.runId, ledger);
    const labels = runLabels(spec, this.owner);
    if (usesStageNetwork(spec)) {
      const Name = networkName(spec);
      await ledger.created(
        'network',
        () => this.docker.createNetwork({ Name, Driver: 'bridge', Labels: labels }, signal),
        () => Name,
      );
    }
    const volumes = [
      ...(spec.workspace.hostPath === undefined ? [workspaceVolume(spec)] : []),
      ...spec.volumes.flatMap((v) =>
        v.kind === 'temp' && v.medium === 'disk' ? [tempVolume(spec, v.name)] : [],
      ),
    ];
    await Promise.all(
      volumes.map((Name) =>
        ledger.created(
          'volume',
          () => this.docker.createVolume({ Name, Labels: labels }, signal),
          () => Name,
        ),
      ),
    );
  }

  async run(
    spec: ExecSpec,
    step: ExecStep,
    output: OutputSink,
    signal?: AbortSignal,
    around?: AroundStep,
  ): Promise<StepExit> {
    const abort = signal ?? new AbortController().signal;
    abort.throwIfAborted();
    await ensureImage(this.docker, step, output, this.streamPull, abort);
    abort.throwIfAborted();
    // A run not set up (or already destroyed) has no ledger: its destroy lists by label instead.
    const ledger = this.ledgers.get(spec.runId) ?? new RunLedger();
    const { Id: container } = await ledger.created(
      'container',
      () => this.docker.createContainer(containerConfig(spec, step, this.owner)),
      (created) => created.Id,
    );
    if (!step.networkMode) {
      for (const network of step.networks) {
        await this.docker.connectNetwork(network, container, { Aliases: [step.name] });
      }
    }
    abort.throwIfAborted();
    // The archive endpoints work on a created container, before it runs and after it exited.
    const files = around === undefined ? undefined : this.filesOf(container);
    if (around !== undefined && files !== undefined) await around.before(files);
    abort.throwIfAborted();
    const logs = await attachOutput(this.docker, container, output);
    try {
      // Not aborted midway: the container's processes run before the engine answers, and a
      // dropped request would leave them running with no one to kill them. An abort meanwhile is
      // seen by waitFor as soon as the answer comes, and kills the container then.
      await this.docker.startContainer(container);
    } catch (err) {
      logs.close();
      throw err;
    }
    if (step.detach) {
      // Runs on in the background; destroy removes it and so ends its log stream.
      this.active.get(spec.runId)?.add(logs);
      return { exitCode: 0, oomKilled: false };
    }
    const exit = await this.waitFor(container, logs, abort);
    if (around !== undefined && files !== undefined) await around.after(files, exit);
    // As `docker run --rm` does; not awaited, so that the next step starts meanwhile. `destroy`
    // waits for these removals, and removes whatever one of them failed to.
    ledger.removing(container, this.docker.removeContainer(container, { force: true, volumes: true }));
    return exit;
  }

  async destroy(spec: ExecSpec): Promise<void> {
    const followers = this.active.get(spec.runId) ?? new Set();
    this.active.delete(spec.runId);
    const ledger = this.ledgers.get(spec.runId);
    this.ledgers.delete(spec.runId);
    try {
      if (ledger === undefined) await removeMatching(this.docker, runFilter(spec.runId));
      else await ledger.removeAll(this.docker, runFilter(spec.runId));
    } finally {
      for (const logs of followers) logs.close();
    }
  }

  /**
   * Removes what runs of this owner left behind when their runner died before `destroy`: every
   * run found on labelled resources that `isAlive` does not claim (by default: every run this
   * engine has not set up). Call it when a runner starts, before it takes work.
   */
  async removeLeftovers(
    isAlive: (runId: string) => boolean = (id) => this.active.has(id),
  ): Promise<Leftovers> {
    const owned = { label: [`${LABEL_OWNER}=${this.owner}`] };
    const runs = [...(await runsMatching(this.docker, owned))].filter((id) => !isAlive(id));
    const total: Leftovers = { runs, containers: 0, networks: 0, volumes: 0 };
    for (const runId of runs) {
      const removed = await removeMatching(this.docker, {
        label: [...owned.label, ...runFilter(runId).label],
      });
      total.containers += removed.containers;
      total.networks += removed.networks;
      total.volumes += removed.volumes;
    }
    return total;
  }

  /** The step's files through the Engine API's archive endpoints: no helper image, nothing in the step. */
  private filesOf(container: string): StepFiles {
    return {
      put: (tar, signal) => this.docker.putArchive(container, '/', tar, signal),
      get: (path, signal) => this.docker.getArchive(container, path, signal),
    };
  }

  /** Waits for the container to exit and its output to be read; a cancel kills it at once. */
  private async waitFor(container: string, logs: LogFollower, signal: AbortSignal): Promise<StepExit> {
    let onAbort: (() => void) | undefined;
    let killed = false;
    const aborted = new Promise<never>((_, reject) => {
      // The step is dead when the caller hears of the abort: the kill is waited for.
      onAbort = () => {
        killed = true;
        void this.docker
          .killContainer(container)
          // A kill Docker refused (the engine busy, the container between states): removed by force.
          .catch(() => this.docker.removeContainer(container, { force: true }))
          .catch(() => undefined)
          .finally(() => {
            logs.close();
            reject(abortError(signal));
          });
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
    // Only the race below listens; an abort after it settled must not be an unhandled rejection.
    aborted.catch(() => undefined);
    try {
      // Both: the stream can end a moment before Docker records the exit, and the exit can come
      // before the last output has been read.
      const exited = this.docker.waitContainer(container);
      await Promise.race([Promise.all([exited, logs.done]), aborted]);
      // Killed by the abort, the container also exits (137): the abort is what the caller hears of.
      if (killed) await aborted;
      const info = await this.docker.inspectContainer(container);
      return { exitCode: info.State.ExitCode, oomKilled: info.State.OOMKilled };
    } finally {
      if (onAbort) signal.removeEventListener('abort', onAbort);
    }
  }
}

function abortError(signal: AbortSignal): Error {
  const error = new Error('step aborted', { cause: signal.reason });
  error.name = 'AbortError';
  return error;
}
