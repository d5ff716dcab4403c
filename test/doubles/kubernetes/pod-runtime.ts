/*
 * What the double's kubelet knows about a pod on its node: the sandbox, the prepared volumes, and per
 * container (a "slot", named like the spec container) the Docker containers created for it — one
 * "instance" per (re)start, the last being the current one and the one before it the previous one (the
 * source of `lastState` and of `previous=true` logs).
 */
import type { ContainerStateTerminated, ContainerStateWaiting } from './types.js';

export interface Instance {
  readonly dockerId: string;
  /** The spec image this instance was started for (an image change restarts the container). */
  readonly specImage: string;
  /** The image as the kubelet reports it (`docker.io/library/alpine:3`). */
  readonly imageRef: string;
  readonly imageID: string;
  startedAt?: string;
  terminated?: ContainerStateTerminated;
  /** Resolves once `terminated` is set. */
  readonly exited: Promise<void>;
  markExited(state: ContainerStateTerminated): void;
}

export function newInstance(fields: {
  dockerId: string;
  specImage: string;
  imageRef: string;
  imageID: string;
}): Instance {
  let resolve: () => void = () => undefined;
  const exited = new Promise<void>((r) => (resolve = r));
  const instance: Instance = {
    ...fields,
    exited,
    markExited(state) {
      if (instance.terminated !== undefined) return;
      instance.terminated = state;
      resolve();
    },
  };
  return instance;
}

export class ContainerSlot {
  /** Every Docker container made for this slot, oldest first (older than the previous one are removed). */
  readonly instances: Instance[] = [];
  /** Why the container is not running, when the last attempt to start it failed or is pending. */
  waiting: ContainerStateWaiting | undefined;
  /** An operation (start, restart) is running for this slot. */
  busy = false;
  /** The current instance is being replaced (image change): not "stopped" for the pod phase. */
  restarting = false;
  /** No new attempt before this time (ms since epoch): back-off after a failure. */
  retryAt = 0;
  /** The spec image the last failed attempt was for: a different image is tried at once. */
  failedImage: string | undefined;
  /** The current back-off delay (doubles per failure up to the maximum). */
  backOffMs = 0;
  /** Instances removed by garbage collection (they still count as restarts). */
  discarded = 0;
  /** A restart the kubelet committed to (image swap) has not produced a running instance yet. */
  pendingRestart = false;
  /** Why the last start after an image swap failed (kept for tests; the status does not show it). */
  lastFailure: ContainerStateWaiting | undefined;
  /** CrashLoopBackOff (restartPolicy Always/OnFailure): the current delay and the next allowed restart. */
  crashBackOffMs = 0;
  crashRetryAt = 0;
  /** When a sync is already scheduled for this slot's back-off. */
  wakeAt = 0;

  constructor(
    readonly name: string,
    readonly init: boolean,
  ) {}

  get current(): Instance | undefined {
    return this.instances.at(-1);
  }

  get previous(): Instance | undefined {
    return this.instances.at(-2);
  }

  get restartCount(): number {
    return Math.max(0, this.discarded + this.instances.length - 1);
  }

  get running(): boolean {
    const current = this.current;
    return current !== undefined && current.terminated === undefined && current.startedAt !== undefined;
  }
}

export interface PreparedVolume {
  kind: 'docker' | 'bind' | 'files';
  /** Docker volume name, or host path. */
  source: string;
  /** For `files` volumes: the fingerprint of what is written. */
  written?: string;
}

export class PodRuntime {
  readonly slots = new Map<string, ContainerSlot>();
  readonly volumes = new Map<string, PreparedVolume>();
  sandbox: { id: string; podIP: string; hostIP: string } | undefined;
  /** Why the sandbox or the volumes are not ready (a missing secret, an engine error). */
  setupProblem: string | undefined;
  startTime: string | undefined;
  /** The phase once the pod finished: Succeeded and Failed are final. */
  terminalPhase: 'Succeeded' | 'Failed' | undefined;
  terminating = false;
  /** When the kubelet first saw the pod (the `kubernetes.io/config.seen` annotation of the downward API). */
  readonly seenAt = new Date().toISOString();
  /** lastTransitionTime of each condition the kubelet sets, kept while its status does not change. */
  readonly transitions = new Map<string, { status: string; time: string }>();

  constructor(
    readonly uid: string,
    readonly namespace: string,
    readonly name: string,
    readonly stateDir: string,
  ) {}

  slot(name: string, init: boolean): ContainerSlot {
    let slot = this.slots.get(name);
    if (slot === undefined) {
      slot = new ContainerSlot(name, init);
      this.slots.set(name, slot);
    }
    return slot;
  }
}
