import type { GaugeSource } from '../../core/gauges.js';
import type { LiveLogs } from '../../core/live-logs.js';
import type { LogLine } from '../../core/log.js';

interface Subscriber {
  onLines: (lines: readonly LogLine[]) => void;
  onEnd: (lastPos?: number) => void;
}

/**
 * LiveLogs within one server process: lines published for a step go to the subscribers of that
 * step at the moment, in order; nothing is kept (durable copies are in the store), so a watcher
 * that subscribes late reads the stored batches first. A subscriber that throws is dropped and the
 * others still get the lines.
 */
export class InMemoryLiveLogs implements LiveLogs, GaugeSource {
  readonly #steps = new Map<number, Set<Subscriber>>();

  publish(stepId: number, lines: readonly LogLine[]): void {
    if (lines.length === 0) return;
    for (const subscriber of [...(this.#steps.get(stepId) ?? [])]) {
      try {
        subscriber.onLines(lines);
      } catch {
        this.#remove(stepId, subscriber);
      }
    }
  }

  end(stepId: number, lastPos?: number): void {
    const subscribers = this.#steps.get(stepId);
    this.#steps.delete(stepId);
    for (const subscriber of subscribers ?? []) {
      try {
        subscriber.onEnd(lastPos);
      } catch {
        // The log is over for everyone; one failing watcher does not keep the others from hearing it.
      }
    }
  }

  subscribe(
    stepId: number,
    onLines: (lines: readonly LogLine[]) => void,
    onEnd: (lastPos?: number) => void,
  ): () => void {
    const subscriber: Subscriber = { onLines, onEnd };
    const subscribers = this.#steps.get(stepId) ?? new Set<Subscriber>();
    subscribers.add(subscriber);
    this.#steps.set(stepId, subscribers);
    return () => this.#remove(stepId, subscriber);
  }

  /** How many steps have subscribers (for tests and metrics: ended steps leave nothing behind). */
  get watchedSteps(): number {
    return this.#steps.size;
  }

  sizes(): Record<string, number> {
    let subscribers = 0;
    for (const set of this.#steps.values()) subscribers += set.size;
    return { watched_steps: this.#steps.size, subscribers };
  }

  #remove(stepId: number, subscriber: Subscriber): void {
    const subscribers = this.#steps.get(stepId);
    if (subscribers === undefined) return;
    subscribers.delete(subscriber);
    if (subscribers.size === 0) this.#steps.delete(stepId);
  }
}
