import type { Kysely } from 'kysely';
import type { ClusterChannel, ClusterSignal } from '../../core/cluster.js';
import type { Tables } from '../tables.js';
import { Hearers } from './hearers.js';
import { readSignal, signalText } from './signal-text.js';

/** How a table channel polls. */
export interface TableChannelOptions {
  /** How often the table is read while someone listens. */
  pollMs?: number;
  /** How long a signal row is kept before any server may delete it. */
  keepMs?: number;
  now?: () => number;
}

/**
 * Rows of ids this far below the highest read are read again: MySQL hands out AUTO_INCREMENT ids
 * at INSERT, so a row can become visible after a higher id did (two servers inserting at once),
 * and a reader that only asked for ids above the highest seen would miss it for good.
 */
const REREAD = 64;
/** Rows read per poll at most; a longer backlog is read over the next polls. */
const PAGE = 500;

/**
 * Signals between servers on a database without LISTEN/NOTIFY (MySQL, MariaDB): each signal is a
 * row of `cluster_signals`, and every server that listens reads the rows newer than those it has
 * read, every `pollMs` (250 ms). Log batches are not signalled here (`carriesLogs` false): a row per
 * batch would double the writes of every log, so viewers read the stored batches themselves.
 * Rows older than `keepMs` (a minute) are deleted by whichever server polls; a server that was
 * stopped longer simply starts from the newest row, since the signals are hints (the database is
 * the truth and every part also looks at it periodically).
 */
export class TableChannel implements ClusterChannel {
  readonly shared = true;
  readonly carriesLogs = false;
  readonly #db: Kysely<Tables>;
  readonly #origin: string;
  readonly #log: (msg: string) => void;
  readonly #hearers: Hearers;
  readonly #pollMs: number;
  readonly #keepMs: number;
  readonly #now: () => number;
  /** Ids read so far among the last REREAD below the highest; undefined until the first read. */
  #highest: number | undefined;
  readonly #seen = new Set<number>();
  #timer: NodeJS.Timeout | undefined;
  #lastPurge = 0;
  #failing = false;
  #closed = false;

  constructor(
    db: Kysely<Tables>,
    origin: string,
    log: (msg: string) => void,
    options: TableChannelOptions = {},
  ) {
    this.#db = db;
    this.#origin = origin;
    this.#log = log;
    this.#hearers = new Hearers(log);
    this.#pollMs = options.pollMs ?? 250;
    this.#keepMs = options.keepMs ?? 60_000;
    this.#now = options.now ?? Date.now;
  }

  send(signal: ClusterSignal): void {
    if (signal.kind === 'log' || this.#closed) return;
    const row = { origin: this.#origin, body: signalText(this.#origin, signal), created: this.#now() };
    this.#db
      .insertInto('cluster_signals')
      .values(row)
      .execute()
      .catch((error: unknown) => this.#log(`cluster signal ${signal.kind} not sent: ${String(error)}`));
  }

  listen(hear: (signal: ClusterSignal) => void): () => void {
    const stop = this.#hearers.add(hear);
    if (this.#timer === undefined && !this.#closed) this.#schedule(0);
    return stop;
  }

  close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    return Promise.resolve();
  }

  #schedule(ms: number): void {
    this.#timer = setTimeout(() => {
      void this.#poll().finally(() => {
        if (!this.#closed) this.#schedule(this.#pollMs);
      });
    }, ms);
    this.#timer.unref();
  }

  async #poll(): Promise<void> {
    try {
      if (this.#highest === undefined) {
        // Signals sent before this server listened are of no use to it.
        const row = await this.#db
          .selectFrom('cluster_signals')
          .select((eb) => eb.fn.max('id').as('id'))
          .executeTakeFirst();
        const top = Number(row?.id ?? 0);
        await this.#read(top, false);
        this.#highest = top;
        return;
      }
      await this.#read(this.#highest, true);
      await this.#purge();
      if (this.#failing) this.#log('cluster signals: the table is readable again');
      this.#failing = false;
    } catch (error) {
      // Said once per outage: the database being down is reported by everything else too.
      if (!this.#failing) this.#log(`cluster signals: reading the table failed: ${String(error)}`);
      this.#failing = true;
    }
  }

  /** Reads the rows above `highest` − REREAD not read yet; `deliver` false only marks them read. */
  async #read(highest: number, deliver: boolean): Promise<void> {
    const rows = await this.#db
      .selectFrom('cluster_signals')
      .select(['id', 'body'])
      .where('id', '>', highest - REREAD)
      .orderBy('id')
      .limit(PAGE)
      .execute();
    let top = highest;
    for (const row of rows) {
      const id = Number(row.id);
      top = Math.max(top, id);
      if (this.#seen.has(id)) continue;
      this.#seen.add(id);
      const signal = deliver ? readSignal(this.#origin, row.body) : undefined;
      if (signal !== undefined) this.#hearers.tell(signal);
    }
    this.#highest = top;
    for (const id of this.#seen) if (id <= top - REREAD) this.#seen.delete(id);
  }

  async #purge(): Promise<void> {
    const now = this.#now();
    if (now - this.#lastPurge < this.#keepMs / 2) return;
    this.#lastPurge = now;
    await this.#db
      .deleteFrom('cluster_signals')
      .where('created', '<', now - this.#keepMs)
      .execute();
  }
}
