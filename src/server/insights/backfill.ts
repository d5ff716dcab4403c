import type { Logger } from 'pino';
import type { Store } from '../../core/store.js';
import type { Leadership } from '../cluster/lease-keeper.js';
import { PassLoop } from '../pass-loop.js';
import type { InsightRollup } from './rollup.js';

/** Builds looked up per query; each is then counted on its own. */
const BATCH = 100;
/** A build changed this recently is left to the rollup listener, which is counting it now. */
const SETTLE_MS = 60_000;
/** A full pass again every hour: it finds only what a dying server missed, so costs one scan. */
const PASS_EVERY_MS = 3600_000;
/** Between batches the server answers requests: the backfill takes at most about half its time. */
const PAUSE_MS = 25;

export interface InsightBackfillDeps {
  readonly store: Pick<Store, 'builds' | 'insights'>;
  readonly rollup: Pick<InsightRollup, 'factsOf'>;
  readonly logger: Logger;
  /** Counts only while this server holds the jobs' lease (several servers on one database). */
  readonly leader?: Leadership | undefined;
  readonly now?: () => number;
  readonly intervalMs?: number;
}

/**
 * Counts in the insight rollups the builds that the rollup listener did not (docs/insights.md):
 * those that finished before the upgrade that brought insights, so that the charts of a server
 * that ran for years show its history, and any whose count a server dying at the wrong moment
 * missed. Once when the server is ready, then hourly; a build is counted once whoever counts it.
 */
export class InsightBackfill {
  readonly #deps: InsightBackfillDeps;
  readonly #loop: PassLoop;
  #stopping = false;

  constructor(deps: InsightBackfillDeps) {
    this.#deps = deps;
    this.#loop = new PassLoop(() => this.pass(), deps.intervalMs ?? PASS_EVERY_MS);
  }

  start(): void {
    this.#stopping = false;
    this.#loop.start();
  }

  /** Stops counting between two builds; resolves once the pass under way has ended. */
  stop(): Promise<void> {
    this.#stopping = true;
    return this.#loop.stop();
  }

  /** One pass over every uncounted build: how many it counted. Never throws. */
  async pass(): Promise<number> {
    const { store, logger, leader } = this.#deps;
    if (leader?.held === false) return 0;
    const before = (this.#deps.now ?? Date.now)() - SETTLE_MS;
    let counted = 0;
    let afterId = 0;
    try {
      for (;;) {
        const ids = await store.insights.uncounted(afterId, before, BATCH);
        for (const id of ids) {
          if (this.#stopping) return counted;
          afterId = id;
          if (await this.#count(id)) counted++;
        }
        if (ids.length < BATCH) break;
        logger.debug({ counted, afterId }, 'build insights: counting builds finished earlier');
        await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
      }
    } catch (error) {
      // The database may be briefly unreachable; the next pass goes on where this one stopped.
      logger.warn({ err: error, build: afterId }, 'build insights: counting earlier builds failed');
    }
    if (counted > 0) logger.info({ counted }, `build insights: counted ${counted} earlier builds`);
    return counted;
  }

  /**
   * Counts one build; false when it was counted meanwhile. A build whose facts cannot be read is
   * logged and passed over, so that one bad row never holds the backfill back.
   */
  async #count(id: number): Promise<boolean> {
    const { store, rollup, logger } = this.#deps;
    let facts;
    try {
      const build = await store.builds.find(id);
      if (build === undefined) return false;
      facts = await rollup.factsOf(build);
    } catch (error) {
      logger.warn({ err: error, build: id }, 'build insights: an earlier build was not counted');
      return false;
    }
    return store.insights.record(id, facts);
  }
}
