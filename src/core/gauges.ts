/**
 * Sizes of what a long-lived component holds in memory — entries of its maps and sets, waiting
 * requests, subscribers — by name, for the server's /metrics. A server runs for months: whatever
 * grows with use must be seen to come back down. Names are short snake_case words, unique within
 * the source; reading them is cheap and changes nothing.
 */
export interface GaugeSource {
  sizes(): Readonly<Record<string, number>>;
}

/** Where the composition root hands its components' sizes to the metrics (one per server process). */
export interface GaugeRegistry {
  /** Adds `source` under `name` (e.g. `live_logs`); its sizes show as `name.size_name`. */
  add(name: string, source: GaugeSource): void;
}

/** A database's connections as its pool holds them now (SQLite: its one connection). */
export interface DatabaseConnections {
  /** Connections open, in use or idle. */
  readonly open: number;
  /** Open connections no query holds. */
  readonly idle: number;
  /** SQL texts kept prepared (SQLite) or named (PostgreSQL); bounded caches. */
  readonly statements: number;
}
