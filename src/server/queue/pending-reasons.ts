import type { QueuedStage, QueueStore } from '../../core/queue.js';
import type { RunnerStore } from '../../core/runner.js';
import type { Stage } from '../../core/stage.js';
import { pendingReason, type PendingContext, type PendingReason } from './pending-reason.js';

/** What the reasons are read from. */
export interface PendingReasonsDeps {
  store: {
    queue: Pick<QueueStore, 'listIncomplete' | 'takenBy' | 'pausedSince'>;
    runners: Pick<RunnerStore, 'list'>;
  };
  now?: () => number;
}

/** A stage that waits, with no facts of its queue read (approval and dependencies need none). */
function bare(stage: Stage): QueuedStage {
  return {
    stage,
    repo: { slug: '', trusted: false, throttle: 0 },
    build: { event: 'push' },
    active: 0,
    running: { builds: 0, thisBuild: false },
  };
}

/**
 * "Why is this stage pending?" for the API: reads the queue, the registered runners with the
 * stages each holds, and the pause switch, then asks pendingReason for each waiting stage.
 * Nothing is read for a build none of whose stages waits.
 */
export class PendingReasons {
  readonly #deps: PendingReasonsDeps;
  readonly #now: () => number;

  constructor(deps: PendingReasonsDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
  }

  /** The incomplete stages (GET /api/queue), oldest first, each pending one with its reason. */
  async queue(): Promise<{ item: QueuedStage; reason: PendingReason | undefined }[]> {
    const [items, context] = await Promise.all([this.#deps.store.queue.listIncomplete(), this.#context()]);
    return items.map((item) => ({ item, reason: pendingReason(item, context) }));
  }

  /** The reasons of those of `stages` that wait (pending, waiting on dependencies, blocked), by stage id. */
  async stages(stages: readonly Stage[]): Promise<Map<number, PendingReason>> {
    const reasons = new Map<number, PendingReason>();
    const waiting = stages.filter((s) =>
      ['pending', 'waiting_on_dependencies', 'blocked'].includes(s.status),
    );
    if (waiting.length === 0) return reasons;
    const queued = waiting.some((s) => s.status === 'pending');
    const [items, context] = await Promise.all([
      queued ? this.#deps.store.queue.listIncomplete() : Promise.resolve([]),
      this.#context(),
    ]);
    const facts = new Map(items.map((item) => [item.stage.id, item]));
    for (const stage of waiting) {
      // A pending stage missing from the queue read was taken or ended meanwhile: its own facts do.
      const reason = pendingReason(facts.get(stage.id) ?? bare(stage), context);
      if (reason !== undefined) reasons.set(stage.id, reason);
    }
    return reasons;
  }

  async #context(): Promise<PendingContext> {
    const { queue, runners } = this.#deps.store;
    const [registered, held, pausedSince] = await Promise.all([
      runners.list(),
      queue.takenBy(),
      queue.pausedSince(),
    ]);
    return {
      runners: registered.map((runner) => ({ runner, running: held.get(runner.name) ?? 0 })),
      pausedSince,
      now: this.#now(),
    };
  }
}
