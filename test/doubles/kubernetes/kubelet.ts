/*
 * The node's kubelet: one PodWorker per pod bound to the node, and graceful deletion as the API server
 * and the kubelet perform it together — the DELETE sets `metadata.deletionTimestamp` (a MODIFIED event),
 * the kubelet stops the containers within the grace period, reports them terminated, removes them, and
 * then the pod leaves the store (the DELETED event). A pod that was never scheduled, or has finished,
 * is deleted at once (grace 0), as the API server decides.
 */
import { join } from 'node:path';
import { copy } from './cluster.js';
import { PodWorker, type WorkerContext } from './pod-worker.js';
import type { Pod } from './types.js';

export class Kubelet {
  private readonly workers = new Map<string, PodWorker>();
  private readonly removals = new Map<string, Promise<void>>();

  constructor(
    private readonly ctx: WorkerContext & { stateDir: string },
    /** A pod left the store: its resources are free. */
    private readonly onRemoved: () => void,
  ) {}

  /** Syncs a pod bound to this node (after binding, and after every update of it). */
  sync(pod: Pod): void {
    if (pod.spec.nodeName !== this.ctx.nodeName) return;
    const uid = pod.metadata.uid ?? '';
    let worker = this.workers.get(uid);
    if (worker === undefined) {
      // A pod deleted before the kubelet saw it never starts.
      if (pod.metadata.deletionTimestamp !== undefined || this.removals.has(uid)) return;
      worker = new PodWorker(this.ctx, pod, join(this.ctx.stateDir, uid));
      this.workers.set(uid, worker);
    }
    worker.request();
  }

  /** Secrets of a namespace changed: pods waiting for one (env, volume) try again. */
  secretsChanged(namespace: string): void {
    for (const worker of this.workers.values()) {
      if (worker.runtime.namespace !== namespace) continue;
      for (const slot of worker.runtime.slots.values()) {
        if (slot.waiting?.reason === 'CreateContainerConfigError') slot.retryAt = 0;
      }
      worker.request();
    }
  }

  worker(uid: string): PodWorker | undefined {
    return this.workers.get(uid);
  }

  /**
   * Deletes a pod with `graceSeconds`; answers the pod as the DELETE returns it (with its
   * deletionTimestamp, or as removed when the deletion is immediate).
   */
  delete(pod: Pod, graceSeconds: number): Pod {
    const uid = pod.metadata.uid ?? '';
    const phase = pod.status.phase;
    const immediate =
      graceSeconds === 0 || pod.spec.nodeName === undefined || phase === 'Succeeded' || phase === 'Failed';
    if (pod.metadata.deletionTimestamp !== undefined && !immediate) return pod;
    const worker = this.workers.get(uid);
    if (immediate) {
      const removed = this.ctx.cluster.remove('pods', pod.metadata.namespace, pod.metadata.name ?? '') as Pod;
      this.removals.set(uid, this.finish(uid, worker, 0).catch(this.ctx.onInternalError));
      return removed;
    }
    const marked = copy(pod);
    marked.metadata.deletionTimestamp = `${new Date(Date.now() + graceSeconds * 1000).toISOString().slice(0, 19)}Z`;
    marked.metadata.deletionGracePeriodSeconds = graceSeconds;
    const stored = this.ctx.cluster.put('pods', marked);
    this.removals.set(
      uid,
      this.finish(uid, worker, graceSeconds)
        .then(() => {
          const current = this.ctx.cluster.pod(pod.metadata.namespace ?? '', pod.metadata.name ?? '');
          if (current?.metadata.uid === uid)
            this.ctx.cluster.remove('pods', current.metadata.namespace, current.metadata.name ?? '');
        })
        .catch(this.ctx.onInternalError),
    );
    return stored;
  }

  private async finish(uid: string, worker: PodWorker | undefined, graceSeconds: number): Promise<void> {
    try {
      await worker?.terminate(graceSeconds);
    } finally {
      this.workers.delete(uid);
      this.onRemoved();
    }
  }

  /** Resolves once a deleted pod is gone from the node and the store. */
  async removed(uid: string): Promise<void> {
    await this.removals.get(uid);
  }

  /** Kills every pod's containers at once and removes what they used. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.workers.values()].map((worker) => worker.terminate(0)));
    await Promise.allSettled([...this.removals.values()]);
  }

  /** For tests: the node-side view of every pod. */
  describe(): { uid: string; worker: PodWorker }[] {
    return [...this.workers].map(([uid, worker]) => ({ uid, worker }));
  }
}
