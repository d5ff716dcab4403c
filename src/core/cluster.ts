/**
 * What servers sharing one database tell each other (docs/ha.md). Each signal only says that
 * something changed in the database — the database stays the truth — so that a server acts now
 * instead of at its next periodic look:
 * - `queue`: stages were queued or released: runners waiting on this server look again.
 * - `build`: a build or one of its stages changed: event streams and cancel watches read it.
 * - `log`: batch `batch` of a running step's log is stored: viewers of the step read it.
 * - `log-end`: the step's log is complete; `last` is its last line's position (-1: none).
 */
export type ClusterSignal =
  | { kind: 'queue' }
  | { kind: 'build'; build: number }
  | { kind: 'log'; step: number; batch: number }
  | { kind: 'log-end'; step: number; last: number };

/**
 * The signals between the servers of one database: PostgreSQL's LISTEN/NOTIFY, a polled table on
 * MySQL, nothing on SQLite (one server only).
 * - `send` is fire-and-forget, and signals may arrive in another order than sent: a signal that cannot be sent is logged and dropped, since every
 *   receiver also looks at the database periodically.
 * - `listen` hears the signals of the OTHER servers, never this one's own (its parts were told
 *   directly); returns the function that stops listening.
 * - `carriesLogs` is false where `log` signals are not sent (MySQL: a row per log batch would double
 *   the log's writes), so that viewers read the stored batches periodically instead.
 * - `shared` is false where the database has one server (SQLite): nothing is sent or heard.
 * - `close` stops listening and polling.
 */
export interface ClusterChannel {
  readonly shared: boolean;
  readonly carriesLogs: boolean;
  send(signal: ClusterSignal): void;
  listen(hear: (signal: ClusterSignal) => void): () => void;
  close(): Promise<void>;
}

/**
 * Named leases in the database, so that one server of several does a job at a time (the watchdog,
 * the reaper, cron): `acquire` takes or renews lease `name` for `holder` until `at + ttl` and
 * returns true, or returns false while another holder's lease runs; `release` gives it up early
 * (a stopping server), which is a no-op when `holder` does not hold it.
 */
export interface LeaseStore {
  acquire(name: string, holder: string, at: number, ttl: number): Promise<boolean>;
  release(name: string, holder: string): Promise<void>;
}
