/*
 * One pod on the node, reconciled like the kubelet's pod worker: syncs are serialised (a request during a
 * sync runs one more pass after it), each pass reads the pod once and works from that snapshot — set up
 * the sandbox and volumes, rewrite downwardAPI/secret files (before any container it starts or
 * restarts), run init containers one after another, then start every container. Container operations
 * (a pull, a start, an image swap) run concurrently, one per container at a time, and end with a
 * status publish and another sync. Nothing here throws out: engine errors become container states.
 *
 * Image change = restart: when a running container's spec image differs from the image it was started
 * for, it is stopped (SIGTERM, SIGKILL after terminationGracePeriodSeconds), reported terminated, and a
 * new instance is started with restartCount + 1, whatever the restart policy. If that start fails under
 * restartPolicy Never, the kubelet does not try again (ShouldContainerBeRestarted is false for a dead
 * container): the status keeps the stopped instance's terminated state. `retryFailedImageSwap` makes the
 * double retry with back-off instead (ErrImagePull → ImagePullBackOff), which real clusters do not.
 */
import type { Cluster } from './cluster.js';
import { startInstance, stopInstance, type RunnerContext, type SlotHost } from './container-runner.js';
import { now } from './docker.js';
import type { FieldValues } from './env.js';
import { deepEqual } from './patch.js';
import { PodRuntime, type ContainerSlot } from './pod-runtime.js';
import { kubeletStatus } from './pod-status.js';
import { prepareVolumes, refreshVolumeFiles, startSandbox, teardown } from './sandbox.js';
import type { Container, Pod } from './types.js';

export interface WorkerContext extends RunnerContext {
  cluster: Cluster;
  retryFailedImageSwap: boolean;
  /** The Docker label (`key=value`) of everything made for a pod. */
  podLabel(uid: string): string;
  /** A pod's phase became Succeeded or Failed: its resources are free for the scheduler. */
  onTerminal(): void;
}

type Action = 'start' | 'swap' | 'restart';

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

export class PodWorker implements SlotHost {
  readonly runtime: PodRuntime;
  private loop: Promise<void> | undefined;
  private again = false;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly inflight = new Set<Promise<void>>();
  private termination: Promise<void> | undefined;

  constructor(
    private readonly ctx: WorkerContext,
    pod: Pod,
    stateDir: string,
  ) {
    const { uid = '', namespace = '', name = '' } = pod.metadata;
    this.runtime = new PodRuntime(uid, namespace, name, stateDir);
  }

  /** The pod as stored now, if it is still this pod. */
  pod(): Pod | undefined {
    const pod = this.ctx.cluster.pod(this.runtime.namespace, this.runtime.name);
    return pod?.metadata.uid === this.runtime.uid ? pod : undefined;
  }

  request(): void {
    if (this.runtime.terminating) return;
    if (this.loop !== undefined) {
      this.again = true;
      return;
    }
    this.loop = this.runLoop().finally(() => (this.loop = undefined));
  }

  private async runLoop(): Promise<void> {
    do {
      this.again = false;
      try {
        await this.syncOnce();
      } catch (error) {
        this.ctx.onInternalError(error);
      }
    } while (this.again && !this.runtime.terminating);
  }

  fields(): FieldValues {
    const sandbox = this.runtime.sandbox;
    return { nodeName: this.ctx.nodeName, podIP: sandbox?.podIP ?? '', hostIP: sandbox?.hostIP ?? '' };
  }

  after(ms: number, action: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      action();
    }, ms);
    timer.unref();
    this.timers.add(timer);
  }

  /** Stores the status the kubelet sees now, when it differs from the stored one (a MODIFIED event). */
  publish(): void {
    const pod = this.pod();
    if (pod === undefined || pod.spec.nodeName === undefined) return;
    const wasTerminal = this.runtime.terminalPhase !== undefined;
    const status = kubeletStatus(pod, this.runtime, now());
    if (deepEqual(status, pod.status)) return;
    this.ctx.cluster.put('pods', { ...pod, status: structuredClone(status) });
    if (!wasTerminal && this.runtime.terminalPhase !== undefined) this.ctx.onTerminal();
  }

  private async syncOnce(): Promise<void> {
    const pod = this.pod();
    const runtime = this.runtime;
    if (pod === undefined || runtime.terminating || pod.spec.nodeName === undefined) return;
    runtime.startTime ??= now();
    if (runtime.sandbox === undefined || runtime.setupProblem !== undefined) {
      try {
        await prepareVolumes(this.ctx, pod, runtime);
        if (runtime.sandbox === undefined) await startSandbox(this.ctx, pod, runtime);
        runtime.setupProblem = undefined;
      } catch (error) {
        runtime.setupProblem = messageOf(error);
        const partial = runtime.sandbox;
        if (partial !== undefined && partial.hostIP === '') {
          runtime.sandbox = undefined;
          await this.ctx.engine.remove(partial.id).catch(() => undefined);
        }
        this.after(this.ctx.pullBackOff.initialMs, () => this.request());
        this.publish();
        return;
      }
    }
    if (runtime.terminating) return;
    try {
      await refreshVolumeFiles(this.ctx, pod, runtime, this.fields());
    } catch (error) {
      this.ctx.onInternalError(error);
    }
    if (runtime.terminalPhase === undefined && this.syncInitContainers(pod)) this.syncContainers(pod);
    this.publish();
  }

  /** Runs init containers in order; true once all have succeeded. */
  private syncInitContainers(pod: Pod): boolean {
    const policy = pod.spec.restartPolicy === 'Never' ? 'Never' : 'OnFailure';
    for (const container of pod.spec.initContainers ?? []) {
      const slot = this.runtime.slot(container.name, true);
      const result = slot.current?.terminated;
      if (result?.exitCode === 0 && !slot.restarting && !slot.pendingRestart) continue;
      this.act(pod, slot, container, policy);
      return false;
    }
    return true;
  }

  private syncContainers(pod: Pod): void {
    const policy = pod.spec.restartPolicy ?? 'Always';
    for (const container of pod.spec.containers) {
      this.act(pod, this.runtime.slot(container.name, false), container, policy);
    }
  }

  private act(pod: Pod, slot: ContainerSlot, container: Container, policy: string): void {
    const action = this.decide(slot, container, policy);
    if (action === undefined) return;
    const grace = pod.spec.terminationGracePeriodSeconds ?? 30;
    this.launch(slot, async () => {
      if (action === 'swap') await this.swap(pod, slot, container, grace);
      else if (await startInstance(this.ctx, this, pod, slot, container)) slot.pendingRestart = false;
    });
  }

  /** What a container needs now; schedules a wake-up when it has to wait for a back-off. */
  private decide(slot: ContainerSlot, container: Container, policy: string): Action | undefined {
    if (slot.busy || this.runtime.terminating) return undefined;
    const image = container.image ?? '';
    const current = slot.current;
    const due = slot.failedImage !== image || Date.now() >= slot.retryAt;
    const later = (action: Action): Action | undefined => {
      if (due) return action;
      this.wakeAt(slot, slot.retryAt);
      return undefined;
    };
    if (current === undefined || slot.pendingRestart) return later('start');
    if (current.terminated === undefined) return current.specImage === image ? undefined : 'swap';
    const restartable = policy === 'Always' || (policy === 'OnFailure' && current.terminated.exitCode !== 0);
    if (!restartable) return undefined;
    if (slot.crashBackOffMs > 0 && Date.now() < slot.crashRetryAt) {
      const { name = '', namespace = '' } = this.pod()?.metadata ?? {};
      const seconds = Math.round(slot.crashBackOffMs / 1000);
      slot.waiting = {
        reason: 'CrashLoopBackOff',
        message: `back-off ${seconds}s restarting failed container=${container.name} pod=${name}_${namespace}(${this.runtime.uid})`,
      };
      this.wakeAt(slot, slot.crashRetryAt);
      return undefined;
    }
    const { initialMs, maxMs } = this.ctx.pullBackOff;
    slot.crashBackOffMs = slot.crashBackOffMs === 0 ? initialMs : Math.min(maxMs, slot.crashBackOffMs * 2);
    slot.crashRetryAt = Date.now() + slot.crashBackOffMs;
    return later('restart');
  }

  private wakeAt(slot: ContainerSlot, at: number): void {
    if (slot.wakeAt === at || !Number.isFinite(at)) return;
    slot.wakeAt = at;
    this.after(Math.max(0, at - Date.now()), () => this.request());
  }

  /** Stops the running instance and starts one with the new image (the kubelet's restart on image change). */
  private async swap(pod: Pod, slot: ContainerSlot, container: Container, grace: number): Promise<void> {
    const current = slot.current;
    slot.restarting = true;
    slot.pendingRestart = true;
    try {
      if (current !== undefined) await stopInstance(this.ctx, current, grace);
      this.publish();
      if (this.runtime.terminating) return;
      const started = await startInstance(this.ctx, this, pod, slot, container);
      if (started || !this.ctx.retryFailedImageSwap) {
        slot.pendingRestart = false;
        if (!started) {
          slot.lastFailure = slot.waiting;
          slot.waiting = undefined;
        }
      }
    } finally {
      slot.restarting = false;
    }
  }

  private launch(slot: ContainerSlot, work: () => Promise<void>): void {
    slot.busy = true;
    const operation: Promise<void> = work()
      .catch((error: unknown) => {
        // An engine call failed outside the cases startInstance words itself (an inspect, a stop).
        slot.waiting = { reason: 'CreateContainerError', message: messageOf(error) };
        slot.retryAt = Date.now() + this.ctx.pullBackOff.initialMs;
        slot.failedImage = undefined;
      })
      .finally(() => {
        slot.busy = false;
        this.inflight.delete(operation);
        this.publish();
        this.request();
      });
    this.inflight.add(operation);
  }

  /**
   * Kills the pod's containers (SIGTERM, SIGKILL after `graceSeconds`), reports them terminated, and
   * removes its Docker containers, volumes and files. Bounded: a stuck operation does not hold it.
   */
  terminate(graceSeconds: number): Promise<void> {
    this.termination ??= this.runTermination(graceSeconds);
    return this.termination;
  }

  private async runTermination(graceSeconds: number): Promise<void> {
    const runtime = this.runtime;
    runtime.terminating = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    const bound = sleep((graceSeconds + 30) * 1000);
    await Promise.race([Promise.allSettled([this.loop]), bound]);
    await Promise.race([Promise.allSettled([...this.inflight]), bound]);
    const running = [...runtime.slots.values()].flatMap((slot) => {
      const current = slot.current;
      return current !== undefined && current.terminated === undefined ? [current] : [];
    });
    await Promise.allSettled(running.map((instance) => stopInstance(this.ctx, instance, graceSeconds)));
    this.publish();
    try {
      await teardown(this.ctx, runtime, this.ctx.podLabel(runtime.uid));
    } catch (error) {
      this.ctx.onInternalError(error);
    }
  }
}
