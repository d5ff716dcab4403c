import type { Logger } from 'pino';
import { PassLoop } from '../pass-loop.js';
import type { HookDeliveryStore } from '../../core/hook-delivery.js';
import type { Leadership } from '../cluster/lease-keeper.js';

/**
 * How long a taken delivery is remembered: a week, well beyond any provider's own retries and
 * manual redeliveries (GitHub offers the last three days of deliveries), and beyond the day the
 * issue asks for. A delivery replayed later than that makes a build again (docs/webhooks.md).
 */
export const DELIVERY_RETENTION_MS = 7 * 24 * 3600_000;
/** How often remembered deliveries are looked at; expired ones are at most this late to go. */
const PRUNE_EVERY_MS = 3600_000;

/** What the pruning of remembered deliveries needs. */
export interface DeliveryPrunerDeps {
  readonly deliveries: Pick<HookDeliveryStore, 'prune'>;
  readonly logger: Logger;
  /** Prunes only while this server holds the jobs' lease (several servers on one database). */
  readonly leader?: Leadership | undefined;
  readonly now?: () => number;
  readonly intervalMs?: number;
}

/**
 * Deletes the deliveries remembered longer than DELIVERY_RETENTION_MS, once when the server is
 * ready and every hour after, so that the table holds about a week of webhooks. Of several servers
 * on one database only the lease holder prunes (the others would delete nothing but still scan).
 */
export class DeliveryPruner {
  readonly #deps: DeliveryPrunerDeps;
  readonly #now: () => number;
  readonly #loop: PassLoop;

  constructor(deps: DeliveryPrunerDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
    this.#loop = new PassLoop(() => this.pass(), deps.intervalMs ?? PRUNE_EVERY_MS);
  }

  start(): void {
    this.#loop.start();
  }

  /** Stops pruning; resolves once a pass under way has ended. */
  stop(): Promise<void> {
    return this.#loop.stop();
  }

  /** One pass: how many expired deliveries it deleted. Never throws. */
  async pass(): Promise<number> {
    if (this.#deps.leader?.held === false) return 0;
    try {
      const pruned = await this.#deps.deliveries.prune(this.#now() - DELIVERY_RETENTION_MS);
      if (pruned > 0) this.#deps.logger.debug({ pruned }, 'webhook deliveries older than a week forgotten');
      return pruned;
    } catch (error) {
      // The database may be briefly unreachable; the next pass prunes what this one left.
      this.#deps.logger.warn({ err: error }, 'webhook deliveries: pruning failed');
      return 0;
    }
  }
}
