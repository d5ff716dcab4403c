import pg from 'pg';
import { sql, type Kysely } from 'kysely';
import type { ClusterChannel, ClusterSignal } from '../../core/cluster.js';
import type { Tables } from '../tables.js';
import { Hearers } from './hearers.js';
import { readSignal, signalText } from './signal-text.js';

/** PostgreSQL's channel name for svc's signals (an identifier: no quoting needed). */
const CHANNEL = 'svc_cluster';
/** Waits between attempts to listen again after the connection was lost: 1 s doubling up to 10 s. */
const RETRY_MS = [1_000, 2_000, 5_000, 10_000];

/**
 * Signals between servers over PostgreSQL's LISTEN/NOTIFY: `send` is one `pg_notify` on the pool,
 * and a dedicated connection (not the pool's: a pooled connection is handed to other queries)
 * LISTENs while anyone listens here. A lost connection (database restart) is opened again with
 * backoff; signals sent meanwhile are missed, which the periodic looks of every part make up for.
 */
export class PostgresChannel implements ClusterChannel {
  readonly shared = true;
  readonly carriesLogs = true;
  readonly #db: Kysely<Tables>;
  readonly #config: pg.ClientConfig;
  readonly #origin: string;
  readonly #log: (msg: string) => void;
  readonly #hearers: Hearers;
  #client: pg.Client | undefined;
  #attempt = 0;
  #retry: NodeJS.Timeout | undefined;
  #listening = false;
  #closed = false;

  constructor(db: Kysely<Tables>, config: pg.ClientConfig, origin: string, log: (msg: string) => void) {
    this.#db = db;
    this.#config = config;
    this.#origin = origin;
    this.#log = log;
    this.#hearers = new Hearers(log);
  }

  send(signal: ClusterSignal): void {
    if (this.#closed) return;
    sql`select pg_notify(${CHANNEL}, ${signalText(this.#origin, signal)})`
      .execute(this.#db)
      .catch((error: unknown) => this.#log(`cluster signal ${signal.kind} not sent: ${String(error)}`));
  }

  listen(hear: (signal: ClusterSignal) => void): () => void {
    const stop = this.#hearers.add(hear);
    if (!this.#listening && !this.#closed) {
      this.#listening = true;
      void this.#connect();
    }
    return stop;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }

  async #connect(): Promise<void> {
    const client = new pg.Client(this.#config);
    let lost = false;
    const onLost = (error?: Error): void => {
      if (lost || this.#closed) return;
      lost = true;
      this.#log(
        `cluster signals: the listening connection was lost${error ? `: ${error.message}` : ''}; listening again`,
      );
      this.#client = undefined;
      client.end().catch(() => undefined);
      this.#again();
    };
    // Unhandled, a connection error event would end the process.
    client.on('error', onLost);
    client.on('end', () => onLost());
    client.on('notification', (message) => {
      if (message.channel !== CHANNEL || message.payload === undefined) return;
      const signal = readSignal(this.#origin, message.payload);
      if (signal !== undefined) this.#hearers.tell(signal);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
      if (this.#closed) {
        await client.end();
        return;
      }
      if (this.#attempt > 0) this.#log('cluster signals: listening again');
      this.#attempt = 0;
      this.#client = client;
    } catch (error) {
      if (!lost && !this.#closed) {
        lost = true;
        if (this.#attempt === 0) this.#log(`cluster signals: cannot listen: ${String(error)}; trying again`);
        client.end().catch(() => undefined);
        this.#again();
      }
    }
  }

  #again(): void {
    if (this.#closed) return;
    const wait = RETRY_MS[Math.min(this.#attempt, RETRY_MS.length - 1)] ?? 10_000;
    this.#attempt++;
    this.#retry = setTimeout(() => void this.#connect(), wait);
    this.#retry.unref();
  }
}
