import type { ClusterSignal } from '../../core/cluster.js';

/** The listeners of a channel; one that throws is logged and the others still hear the signal. */
export class Hearers {
  readonly #hearers = new Set<(signal: ClusterSignal) => void>();
  readonly #log: (msg: string) => void;

  constructor(log: (msg: string) => void) {
    this.#log = log;
  }

  get size(): number {
    return this.#hearers.size;
  }

  add(hear: (signal: ClusterSignal) => void): () => void {
    const hearer = (signal: ClusterSignal): void => hear(signal);
    this.#hearers.add(hearer);
    return () => this.#hearers.delete(hearer);
  }

  tell(signal: ClusterSignal): void {
    for (const hear of [...this.#hearers]) {
      try {
        hear(signal);
      } catch (error) {
        this.#log(`a listener of cluster signals failed on ${signal.kind}: ${String(error)}`);
      }
    }
  }
}
