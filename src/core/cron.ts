/** A repository's scheduled build. */
export interface Cron {
  readonly id: number;
  repoId: number;
  /** Unique per repository. */
  name: string;
  /** Cron expression (with seconds field optional, as croner accepts). */
  expr: string;
  /** Epoch milliseconds of the next and the previous run; 0 when none. */
  next: number;
  prev: number;
  event: string;
  branch: string;
  target: string;
  disabled: boolean;
  created: number;
  updated: number;
  version: number;
}

export type NewCron = Omit<Cron, 'id' | 'created' | 'updated' | 'version'>;

/**
 * Persistence of cron jobs.
 * - `listReady(before)` returns enabled jobs whose `next` is at or before `before`, oldest first.
 * - `update` is optimistic-locked: of two servers picking the same due job, one wins.
 */
export interface CronStore {
  find(id: number): Promise<Cron | undefined>;
  findName(repoId: number, name: string): Promise<Cron | undefined>;
  list(repoId: number): Promise<Cron[]>;
  listReady(before: number): Promise<Cron[]>;
  create(cron: NewCron): Promise<Cron>;
  update(cron: Cron): Promise<Cron>;
  delete(id: number): Promise<void>;
}
