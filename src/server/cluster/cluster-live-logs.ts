import type { Logger } from 'pino';
import type { ClusterChannel, ClusterSignal } from '../../core/cluster.js';
import type { LiveLogs } from '../../core/live-logs.js';
import type { LogLine } from '../../core/log.js';
import type { LogBatchStore } from '../../core/log-batch.js';

/** What live logs across servers need. */
export interface ClusterLiveLogsOptions {
  /** The fan-out to this server's viewers. */
  local: LiveLogs;
  channel: ClusterChannel;
  batches: Pick<LogBatchStore, 'after'>;
  logger: Logger;
  /**
   * How often the stored batches of followed steps are read without a signal (default: 250 ms where
   * the channel does not carry log signals, MySQL; 2 s where it does, against lost signals).
   */
  pollMs?: number;
}

/** A step that viewers on this server follow. */
interface Followed {
  viewers: number;
  /** Batches above this number are read from the store at the next look. */
  readAbove: number;
  /** Batches above `readAbove` already delivered (published on this server). */
  delivered: Set<number>;
  reading: boolean;
  again: boolean;
}

/**
 * LiveLogs for several servers on one database (docs/ha.md): a runner sends a step's batches to
 * whichever server the balancer picks, while its viewers may be on another. Lines published here go
 * to this server's viewers and are announced (`log` signal with the batch number); for a step that
 * viewers here follow, the batches stored by other servers are read from the database — at once on
 * a signal (PostgreSQL), and every `pollMs` — and delivered, each batch once. A batch published
 * here may reach viewers before earlier ones stored elsewhere are read; every line carries its
 * position. The end of a step's log is announced too, so that its viewers everywhere end with it.
 */
export class ClusterLiveLogs implements LiveLogs {
  readonly #local: LiveLogs;
  readonly #channel: ClusterChannel;
  readonly #batches: Pick<LogBatchStore, 'after'>;
  readonly #logger: Logger;
  readonly #pollMs: number;
  readonly #followed = new Map<number, Followed>();
  #timer: NodeJS.Timeout | undefined;
  readonly #unlisten: () => void;

  constructor(options: ClusterLiveLogsOptions) {
    this.#local = options.local;
    this.#channel = options.channel;
    this.#batches = options.batches;
    this.#logger = options.logger;
    this.#pollMs = options.pollMs ?? (options.channel.carriesLogs ? 2_000 : 250);
    this.#unlisten = this.#channel.listen((signal) => this.#hear(signal));
  }

  publish(stepId: number, lines: readonly LogLine[], batch?: number): void {
    const followed = this.#followed.get(stepId);
    if (batch !== undefined && followed !== undefined) {
      if (followed.delivered.has(batch) || batch <= followed.readAbove) return;
      followed.delivered.add(batch);
    }
    this.#local.publish(stepId, lines, batch);
    if (batch !== undefined) this.#channel.send({ kind: 'log', step: stepId, batch });
  }

  end(stepId: number, lastPos?: number): void {
    this.#forget(stepId);
    this.#local.end(stepId, lastPos);
    this.#channel.send({ kind: 'log-end', step: stepId, last: lastPos ?? -1 });
  }

  subscribe(
    stepId: number,
    onLines: (lines: readonly LogLine[]) => void,
    onEnd: (lastPos?: number) => void,
  ): () => void {
    const followed = this.#followed.get(stepId) ?? {
      viewers: 0,
      readAbove: -1,
      delivered: new Set<number>(),
      reading: false,
      again: false,
    };
    followed.viewers++;
    this.#followed.set(stepId, followed);
    this.#arm();
    const unsubscribe = this.#local.subscribe(stepId, onLines, onEnd);
    let left = false;
    return () => {
      unsubscribe();
      if (left) return;
      left = true;
      if (this.#followed.get(stepId) === followed && --followed.viewers === 0) this.#forget(stepId);
    };
  }

  /** Stops reading and listening (the server closes). */
  close(): void {
    this.#unlisten();
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#followed.clear();
  }

  #hear(signal: ClusterSignal): void {
    if (signal.kind === 'log') {
      const followed = this.#followed.get(signal.step);
      if (followed !== undefined && !followed.delivered.has(signal.batch)) void this.#read(signal.step);
    } else if (signal.kind === 'log-end') {
      // A viewer that lacks any line up to `last` reads the stored log (the stream route's rule).
      this.#forget(signal.step);
      this.#local.end(signal.step, signal.last >= 0 ? signal.last : undefined);
    }
  }

  /** Reads the step's batches stored since the last look and delivers those not delivered yet. */
  async #read(stepId: number): Promise<void> {
    const followed = this.#followed.get(stepId);
    if (followed === undefined) return;
    if (followed.reading) {
      followed.again = true;
      return;
    }
    followed.reading = true;
    try {
      do {
        followed.again = false;
        for (const { batch, lines } of await this.#batches.after(stepId, followed.readAbove)) {
          if (this.#followed.get(stepId) !== followed) return;
          followed.readAbove = Math.max(followed.readAbove, batch);
          if (followed.delivered.delete(batch)) continue;
          this.#local.publish(stepId, lines, batch);
        }
        for (const batch of followed.delivered)
          if (batch <= followed.readAbove) followed.delivered.delete(batch);
      } while (followed.again);
    } catch (error) {
      // The next look tries again; the viewer's stored-log read at the end fills any gap.
      this.#logger.warn({ err: error, step: stepId }, 'live log: reading the stored batches failed');
    } finally {
      followed.reading = false;
    }
  }

  #forget(stepId: number): void {
    this.#followed.delete(stepId);
    if (this.#followed.size === 0) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }

  /** Looks at every followed step every `pollMs` while any is followed. */
  #arm(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => {
      for (const stepId of this.#followed.keys()) void this.#read(stepId);
    }, this.#pollMs);
    this.#timer.unref();
  }
}
