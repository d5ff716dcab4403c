import type { Logger } from 'pino';
import { KubeApiError, type KubeApi, type PodEvent } from './api.js';
import type { KubePod } from './pod-state.js';

/** How often the pod is read besides the watch: a safety net for events a watch may miss. */
const RESYNC_MS = 15_000;
/** Pause before watching again after a watch failed. */
const RETRY_MS = 1_000;

/**
 * The latest state of one pod, kept by a watch (`GET …/pods?watch=true&fieldSelector=metadata.name=`)
 * that is renewed whenever it ends (API servers and the client end quiet watches) from the last
 * resourceVersion seen, and by a read every 15 s. Steps wait on it with `until`.
 */
export class PodWatcher {
  readonly #api: KubeApi;
  readonly #namespace: string;
  readonly #name: string;
  readonly #logger: Logger;
  readonly #stopped = new AbortController();
  #pod: KubePod | undefined;
  #version = '';
  #gone = false;
  #listeners = new Set<() => void>();
  #watch: AbortController | undefined;
  #loop: Promise<void> | undefined;

  constructor(api: KubeApi, namespace: string, name: string, logger: Logger) {
    this.#api = api;
    this.#namespace = namespace;
    this.#name = name;
    this.#logger = logger;
  }

  start(): void {
    this.#loop ??= this.#run();
  }

  /** The pod was deleted (by this runner's destroy, or by someone else). */
  get gone(): boolean {
    return this.#gone;
  }

  /**
   * Resolves with the first non-undefined value of `pick` over the pod's states, from now on; rejects
   * when the pod is deleted or `signal` aborts.
   */
  until<T>(pick: (pod: KubePod) => T | undefined, signal: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const check = (): void => {
        if (signal.aborted) return finish(() => reject(asError(signal.reason)));
        if (this.#gone) return finish(() => reject(new Error(`the pod ${this.#name} was deleted`)));
        if (this.#pod === undefined) return;
        let value: T | undefined;
        try {
          value = pick(this.#pod);
        } catch (error) {
          return finish(() => reject(asError(error)));
        }
        if (value !== undefined) finish(() => resolve(value));
      };
      const finish = (settle: () => void): void => {
        this.#listeners.delete(check);
        signal.removeEventListener('abort', check);
        settle();
      };
      this.#listeners.add(check);
      signal.addEventListener('abort', check, { once: true });
      check();
    });
  }

  async stop(): Promise<void> {
    this.#stopped.abort();
    this.#watch?.abort();
    await this.#loop;
  }

  #update(pod: KubePod): void {
    const version = pod.metadata?.resourceVersion ?? '';
    // A read and a watch event may cross: never go back to an older state.
    if (this.#version !== '' && version !== '' && Number(version) < Number(this.#version)) return;
    this.#pod = pod;
    if (version !== '') this.#version = version;
    this.#notify();
  }

  #notify(): void {
    for (const listener of [...this.#listeners]) listener();
  }

  async #run(): Promise<void> {
    let lastRead = 0;
    while (!this.#stopped.signal.aborted && !this.#gone) {
      if (Date.now() - lastRead >= RESYNC_MS || this.#pod === undefined) {
        lastRead = Date.now();
        await this.#read();
        if (this.#gone || this.#stopped.signal.aborted) break;
      }
      await this.#watchOnce(RESYNC_MS);
    }
    this.#notify();
  }

  async #read(): Promise<void> {
    try {
      this.#update(await this.#api.readPod(this.#namespace, this.#name));
    } catch (error) {
      if (error instanceof KubeApiError && error.status === 404) {
        this.#gone = true;
        this.#notify();
        return;
      }
      this.#logger.debug({ err: error }, 'reading the pod failed');
      await pause(RETRY_MS, this.#stopped.signal);
    }
  }

  /** One watch, ended after `ms` at the latest (then the pod is read again). */
  async #watchOnce(ms: number): Promise<void> {
    const { promise: ended, resolve } = Promise.withResolvers<void>();
    const onEvent = (event: PodEvent): void => {
      if (event.type === 'DELETED') {
        this.#gone = true;
        this.#notify();
        return;
      }
      if (event.type === 'BOOKMARK') {
        this.#version = event.object.metadata?.resourceVersion ?? this.#version;
        return;
      }
      if (event.type === 'ERROR') {
        // 410 Expired: the version is too old; the next read starts over.
        this.#version = '';
        return;
      }
      this.#update(event.object);
    };
    try {
      this.#watch = await this.#api.watchPod(this.#namespace, this.#name, this.#version, onEvent, () =>
        resolve(),
      );
    } catch (error) {
      this.#logger.debug({ err: error }, 'watching the pod failed');
      await pause(RETRY_MS, this.#stopped.signal);
      return;
    }
    const timer = setTimeout(() => this.#watch?.abort(), ms);
    const onStop = (): void => this.#watch?.abort();
    this.#stopped.signal.addEventListener('abort', onStop, { once: true });
    await ended;
    clearTimeout(timer);
    this.#stopped.signal.removeEventListener('abort', onStop);
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

function asError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(String(reason));
}
