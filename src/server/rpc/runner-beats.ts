import type { GaugeSource } from '../../core/gauges.js';
import type { QueueStore } from '../../core/queue.js';
import type { StageStore } from '../../core/stage.js';

/** What coalescing heartbeats needs. */
export interface RunnerBeatsDeps {
  store: { stages: Pick<StageStore, 'find'>; queue: Pick<QueueStore, 'beatStages'> };
  now: () => number;
  /** At most one heartbeat write per runner per this long (default 5 s; well within the watchdog's timeout). */
  every?: number;
}
/** Stages whose runner is remembered; a taken stage's runner never changes, so it is read once. */
const REMEMBERED_STAGES = 4_096;

/**
 * Heartbeats coalesced per runner: the stages a runner showed signs of life for (heartbeats, log
 * batches) are written together, in one statement, at most once per `every` per runner. A busy log sends batches ten times a second and a runner of capacity 8 beats for 8 stages:
 * that is one write per few seconds, not dozens. Only the stages it vouched for are written, never
 * every stage held under its name: a runner restarted under the same name must not keep its lost
 * stages alive.
 */
export class RunnerBeats implements GaugeSource {
  readonly #deps: RunnerBeatsDeps;
  readonly #every: number;
  /** The runner of each stage seen, oldest first (a Map keeps insertion order). */
  readonly #runnerOf = new Map<number, string>();
  /** Per runner: when its heartbeats were last written, and the stages beaten since. */
  readonly #runners = new Map<string, { written: number; stages: Set<number> }>();

  constructor(deps: RunnerBeatsDeps) {
    this.#deps = deps;
    this.#every = deps.every ?? 5_000;
  }

  /**
   * Stage `stageId`, held by `runner`, is alive: written now with the runner's other pending stages
   * unless the runner's heartbeats were written less than `every` ago (then at its next sign).
   */
  async beat(runner: string, stageId: number): Promise<void> {
    const now = this.#deps.now();
    const state = this.#runners.get(runner) ?? { written: -Infinity, stages: new Set<number>() };
    this.#runners.set(runner, state);
    state.stages.add(stageId);
    if (now - state.written < this.#every) return;
    const stages = [...state.stages];
    state.stages.clear();
    state.written = now;
    if (this.#runners.size > 1_000) {
      for (const [name, s] of this.#runners) if (now - s.written > 60_000) this.#runners.delete(name);
    }
    await this.#deps.store.queue.beatStages(stages, now);
  }

  sizes(): Record<string, number> {
    return { stage_holders: this.#runnerOf.size, runners: this.#runners.size };
  }

  /**
   * The stage is done: its runner sends nothing more for it. Forgotten at once, so that the stages
   * remembered are the ones under way, not the last REMEMBERED_STAGES ever run (found by the soak
   * benchmark: one entry per stage until the bound).
   */
  forget(stageId: number): void {
    this.#runnerOf.delete(stageId);
  }

  /** The runner holding the stage, undefined when none does. */
  async holderOf(stageId: number): Promise<string | undefined> {
    const known = this.#runnerOf.get(stageId);
    if (known !== undefined) return known;
    const machine = (await this.#deps.store.stages.find(stageId))?.machine ?? '';
    // Not taken (a stray request): nothing to beat, and nothing to remember.
    if (machine === '') return undefined;
    this.#runnerOf.set(stageId, machine);
    if (this.#runnerOf.size > REMEMBERED_STAGES) {
      const oldest = this.#runnerOf.keys().next().value;
      if (oldest !== undefined) this.#runnerOf.delete(oldest);
    }
    return machine;
  }
}
