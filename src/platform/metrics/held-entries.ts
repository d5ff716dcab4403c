import type { GaugeRegistry, GaugeSource } from '../../core/gauges.js';

/** One size of one component, as /metrics shows it. */
export interface HeldEntry {
  /** `source.size`, e.g. `live_logs.watched_steps`. */
  readonly name: string;
  readonly size: number;
}

/**
 * The sizes of the server's in-memory maps, sets and queues, gathered from the components the
 * composition root registers. A source that throws is reported as nothing rather than breaking
 * the metrics.
 */
export class HeldEntries implements GaugeRegistry {
  readonly #sources = new Map<string, GaugeSource>();

  add(name: string, source: GaugeSource): void {
    if (this.#sources.has(name)) throw new Error(`a gauge source named ${name} is registered already`);
    this.#sources.set(name, source);
  }

  /** Every size, by source then name. */
  read(): HeldEntry[] {
    const entries: HeldEntry[] = [];
    for (const [source, gauges] of this.#sources) {
      let sizes: Readonly<Record<string, number>>;
      try {
        sizes = gauges.sizes();
      } catch {
        continue;
      }
      for (const [name, size] of Object.entries(sizes)) entries.push({ name: `${source}.${name}`, size });
    }
    return entries;
  }
}
