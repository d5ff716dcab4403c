import type { Build } from '../../core/build.js';
import type { BuildListener } from '../../core/events.js';
import type { GaugeSource } from '../../core/gauges.js';
import type { Repo } from '../../core/repo.js';
import type { Stage } from '../../core/stage.js';
import { buildJson } from '../api/json/build.js';
import { repoJson } from '../api/json/repo.js';

/** One build change as the event streams send it: its repository, and the event's JSON text. */
export interface BuildEvent {
  readonly repo: Repo;
  /** Drone's event payload: the repository as the API shows it, with `build` and its `stages`. */
  readonly data: string;
}

/** Where streams of build events subscribe. */
export interface BuildEventSource {
  /** Calls `send` with every build change from now on, until the returned function is called. */
  subscribe(send: (event: BuildEvent) => void): () => void;
}

/**
 * The in-memory fan-out of build changes to the API's event streams (GET /api/stream…): a
 * BuildListener, told by the server of every change of a build or a stage, that hands each change
 * to the streams open on this server. The payload is made once per change, not once per viewer, and
 * only when someone listens. Nothing is kept: a viewer sees the changes that happen while it is
 * connected, and changes made by another server replica on the same database are not seen here.
 */
export class BuildEventHub implements BuildListener, BuildEventSource, GaugeSource {
  readonly #subscribers = new Set<(event: BuildEvent) => void>();

  /** How many streams listen; for tests and metrics. */
  get size(): number {
    return this.#subscribers.size;
  }

  sizes(): Record<string, number> {
    return { subscribers: this.#subscribers.size };
  }

  subscribe(send: (event: BuildEvent) => void): () => void {
    // A wrapper per subscription, so that subscribing the same function twice means two streams.
    const subscriber = (event: BuildEvent): void => send(event);
    this.#subscribers.add(subscriber);
    return () => this.#subscribers.delete(subscriber);
  }

  buildUpdated(change: { repo: Repo; build: Build; stages: Stage[] }): Promise<void> {
    if (this.#subscribers.size === 0) return Promise.resolve();
    const data = JSON.stringify({ ...repoJson(change.repo), build: buildJson(change.build, change.stages) });
    const event: BuildEvent = { repo: change.repo, data };
    for (const send of [...this.#subscribers]) {
      // One broken stream must not keep the others, or the build, from going on.
      try {
        send(event);
      } catch {
        this.#subscribers.delete(send);
      }
    }
    return Promise.resolve();
  }
}
