/** A stage this runner ran or runs, as its dashboard shows it. */
export interface BoardEntry {
  id: number;
  repo: string;
  build: number;
  stage: string;
  /** Epoch milliseconds. */
  started: number;
  finished: number | undefined;
  /** `running` until it ends; then its final status (`success`, `failure`, `error`, `killed`…). */
  status: string;
}

/** How many finished stages the dashboard keeps. */
const RECENT = 25;

/**
 * The stages of this runner, for its dashboard: those running, and the last few that ended. In
 * memory only: the server holds the real record; a restart starts an empty board.
 */
export class StageBoard {
  readonly #running = new Map<number, BoardEntry>();
  readonly #recent: BoardEntry[] = [];

  started(entry: Omit<BoardEntry, 'finished' | 'status'>): void {
    this.#running.set(entry.id, { ...entry, finished: undefined, status: 'running' });
  }

  finished(id: number, status: string, at: number): void {
    const entry = this.#running.get(id);
    if (entry === undefined) return;
    this.#running.delete(id);
    this.#recent.unshift({ ...entry, finished: at, status });
    this.#recent.length = Math.min(this.#recent.length, RECENT);
  }

  /** Sizes for the runner's /metrics. */
  sizes(): Record<string, number> {
    return { running: this.#running.size, recent: this.#recent.length };
  }

  snapshot(): { running: BoardEntry[]; recent: BoardEntry[] } {
    return { running: [...this.#running.values()], recent: [...this.#recent] };
  }
}
