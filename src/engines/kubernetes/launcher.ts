import type { KubeApi } from './api.js';

interface Launch {
  container: string;
  image: string;
  annotations: Record<string, string>;
  settle: { resolve(): void; reject(error: unknown): void };
}

/**
 * Starts steps by giving their containers the step's image: every launch asked for before the next
 * turn of the event loop (the steps a finished dependency releases together) goes into one strategic
 * merge patch with the annotations they carry, so the kubelet gets one pod update for all of them.
 * One patch is in flight at a time; launches asked for meanwhile make the next one.
 */
export class Launcher {
  readonly #api: KubeApi;
  readonly #namespace: string;
  readonly #pod: string;
  #queued: Launch[] = [];
  #scheduled = false;
  #flight: Promise<void> = Promise.resolve();

  constructor(api: KubeApi, namespace: string, pod: string) {
    this.#api = api;
    this.#namespace = namespace;
    this.#pod = pod;
  }

  /** Resolves once the pod carries the image (the kubelet then restarts the container with it). */
  launch(container: string, image: string, annotations: Record<string, string>): Promise<void> {
    const { promise, resolve, reject } = Promise.withResolvers<void>();
    this.#queued.push({ container, image, annotations, settle: { resolve, reject } });
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => {
        this.#scheduled = false;
        const batch = this.#queued;
        this.#queued = [];
        this.#flight = this.#flight.then(() => this.#send(batch));
      });
    }
    return promise;
  }

  async #send(batch: Launch[]): Promise<void> {
    const annotations = Object.assign({}, ...batch.map((launch) => launch.annotations)) as Record<
      string,
      string
    >;
    const patch = {
      ...(Object.keys(annotations).length === 0 ? {} : { metadata: { annotations } }),
      spec: { containers: batch.map((launch) => ({ name: launch.container, image: launch.image })) },
    };
    try {
      await this.#api.patchPod(this.#namespace, this.#pod, patch);
      for (const launch of batch) launch.settle.resolve();
    } catch (error) {
      for (const launch of batch) launch.settle.reject(error);
    }
  }
}
