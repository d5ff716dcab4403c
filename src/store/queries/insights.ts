import { sql, type Kysely } from 'kysely';
import {
  bucketOf,
  type BuildDay,
  type BuildFacts,
  type CacheDay,
  type InsightStore,
  type InsightTotals,
  type RunnerDay,
  type StepDay,
  type TestTotal,
} from '../../core/insights.js';
import type { Connection, DialectAdapter } from '../dialects/adapter.js';
import type { Tables } from '../tables.js';
import { uncountedBuilds } from './insight-backlog.js';
import { cacheTotal, readTotals, totalsOf } from './insight-totals.js';
import { groups } from './read-batch.js';

type Counters = 'insight_build_days' | 'insight_build_buckets' | 'insight_step_days' | 'insight_test_days';
type Rollup = Counters | 'insight_runner_days' | 'insight_cache_days' | 'insight_totals';
/** A row of a grouped sum: its keys as the database sent them, its sums as numbers. */
type SummedRow = Record<string, number | string>;

/** A lock wait one statement lost (MySQL/MariaDB 1213, PostgreSQL 40P01): it is run again. */
function isDeadlock(error: unknown): boolean {
  const { errno, code } = error as { errno?: unknown; code?: unknown };
  return errno === 1213 || code === '40P01';
}

/** Counts per key, as one build's rows add them. */
function counted<K>(keys: readonly K[], key: (k: K) => string): Map<string, { item: K; n: number }> {
  const counts = new Map<string, { item: K; n: number }>();
  for (const item of keys) {
    const found = counts.get(key(item));
    if (found === undefined) counts.set(key(item), { item, n: 1 });
    else found.n++;
  }
  return counts;
}

/**
 * The insight rollups (migration 023). Each of a build's additions is one upsert adding to its
 * counters — INSERT … ON CONFLICT DO UPDATE on SQLite and PostgreSQL, ON DUPLICATE KEY UPDATE on
 * MySQL — in its own statement, in key order, so that builds finishing together never wait on each
 * other for long, and a statement that loses a deadlock runs again. The build's row in
 * `insight_recorded` goes first: a build is counted once, or (a server dying between) in part.
 */
export class SqlInsightStore implements InsightStore {
  readonly #db: Kysely<Tables>;
  readonly #adapter: DialectAdapter;

  constructor({ db, adapter }: Connection) {
    this.#db = db;
    this.#adapter = adapter;
  }

  async record(buildId: number, facts: BuildFacts): Promise<boolean> {
    try {
      await this.#db.insertInto('insight_recorded').values({ build_id: buildId, day: facts.day }).execute();
    } catch (error) {
      if (this.#adapter.isUniqueViolation(error)) return false;
      throw error;
    }
    const key = { repo_id: facts.repoId, day: facts.day };
    await this.#add(
      'insight_build_days',
      {
        ...key,
        builds: 1,
        successes: facts.succeeded ? 1 : 0,
        duration_sum: facts.durationMs,
        queue_sum: facts.queueMs,
      },
      ['builds', 'successes', 'duration_sum', 'queue_sum'],
    );
    for (const [metric, ms] of [facts.durationMs, facts.queueMs].entries())
      await this.#add('insight_build_buckets', { ...key, metric, bucket: bucketOf(ms), n: 1 }, ['n']);
    const steps = new Map<string, { runs: number; failures: number; duration_sum: number }>();
    for (const step of facts.steps) {
      const sums = steps.get(step.name) ?? { runs: 0, failures: 0, duration_sum: 0 };
      sums.runs++;
      if (step.failed) sums.failures++;
      sums.duration_sum += Math.max(0, step.durationMs);
      steps.set(step.name, sums);
    }
    for (const name of [...steps.keys()].sort())
      await this.#add(
        'insight_step_days',
        { ...key, name, ...(steps.get(name) ?? { runs: 0, failures: 0, duration_sum: 0 }) },
        ['runs', 'failures', 'duration_sum'],
      );
    const failed = counted(facts.failedTests, String);
    const flaky = new Set(facts.flakyTests);
    for (const caseId of [...new Set([...facts.failedTests, ...facts.flakyTests])].sort((a, b) => a - b))
      await this.#add(
        'insight_test_days',
        {
          ...key,
          case_id: caseId,
          failures: failed.get(String(caseId))?.n ?? 0,
          flaky: flaky.has(caseId) ? 1 : 0,
        },
        ['failures', 'flaky'],
      );
    const kinds = new Map<string, { stages: number; busy_ms: number }>();
    for (const stage of facts.stages) {
      const sums = kinds.get(stage.kind) ?? { stages: 0, busy_ms: 0 };
      sums.stages++;
      sums.busy_ms += Math.max(0, stage.busyMs);
      kinds.set(stage.kind, sums);
    }
    for (const kind of [...kinds.keys()].sort())
      await this.#add(
        'insight_runner_days',
        { ...key, kind, ...(kinds.get(kind) ?? { stages: 0, busy_ms: 0 }) },
        ['stages', 'busy_ms'],
      );
    for (const total of totalsOf(facts)) await this.#add('insight_totals', total, ['n']);
    return true;
  }

  async countCache(repoId: number, day: number, hit: boolean): Promise<void> {
    const sums = { hits: hit ? 1 : 0, misses: hit ? 0 : 1 };
    await this.#add('insight_cache_days', { repo_id: repoId, day, ...sums }, ['hits', 'misses']);
    await this.#add('insight_totals', cacheTotal(hit), ['n']);
  }

  /** Adds `row`'s `sums` to the counters of its key, creating the row when it is the first. */
  async #add<T extends Rollup>(
    table: T,
    row: Record<string, number | string>,
    sums: readonly string[],
  ): Promise<void> {
    const keys = Object.keys(row).filter((column) => !sums.includes(column));
    const mysql = this.#adapter.product === 'MySQL';
    const increments = Object.fromEntries(
      sums.map((column) => [
        column,
        mysql
          ? sql`${sql.ref(column)} + VALUES(${sql.ref(column)})`
          : sql`${sql.ref(`${table}.${column}`)} + ${sql.ref(`excluded.${column}`)}`,
      ]),
    );
    // The tables' rows are typed apart; this one statement serves them all (hence the casts).
    const db = this.#db as unknown as Kysely<Record<string, Record<string, number | string>>>;
    const insert = db.insertInto(table).values(row);
    const statement = mysql
      ? insert.onDuplicateKeyUpdate(increments as never)
      : insert.onConflict((conflict) => conflict.columns(keys).doUpdateSet(increments as never));
    for (let attempt = 1; ; attempt++) {
      try {
        await statement.execute();
        return;
      } catch (error) {
        if (!isDeadlock(error) || attempt >= 3) throw error;
      }
    }
  }

  /**
   * SUM(`sums`) of `table`'s rows of the repositories and days `from`…`to`, grouped by `keys`: one
   * statement per group of repository ids, whose rows are added together by key.
   */
  async #summed(
    table: Rollup,
    keys: readonly string[],
    sums: readonly string[],
    repoIds: readonly number[],
    from: number,
    to: number,
  ): Promise<SummedRow[]> {
    const merged = new Map<string, SummedRow>();
    const keyRefs = sql.join(keys.map((key) => sql.ref(key)));
    const sumRefs = sql.join(sums.map((column) => sql`SUM(${sql.ref(column)}) AS ${sql.ref(column)}`));
    for (const group of groups(repoIds)) {
      const { rows } = await sql<SummedRow>`SELECT ${keyRefs}, ${sumRefs} FROM ${sql.table(table)}
        WHERE ${sql.ref('repo_id')} IN (${sql.join(group)}) AND ${sql.ref('day')} >= ${from} AND ${sql.ref('day')} <= ${to}
        GROUP BY ${keyRefs}`.execute(this.#db);
      for (const row of rows) {
        const key = keys.map((column) => String(row[column])).join('\u0000');
        const found = merged.get(key);
        if (found === undefined)
          merged.set(key, { ...row, ...Object.fromEntries(sums.map((c) => [c, Number(row[c])])) });
        else for (const column of sums) found[column] = Number(found[column]) + Number(row[column]);
      }
    }
    return [...merged.values()];
  }

  async buildDays(repoIds: readonly number[], from: number, to: number): Promise<BuildDay[]> {
    const days = new Map<number, BuildDay>();
    const dayOf = (day: number): BuildDay => {
      let found = days.get(day);
      if (found === undefined) {
        found = {
          day,
          builds: 0,
          successes: 0,
          durationSumMs: 0,
          queueSumMs: 0,
          durations: new Map(),
          queues: new Map(),
        };
        days.set(day, found);
      }
      return found;
    };
    const sums = ['builds', 'successes', 'duration_sum', 'queue_sum'];
    for (const row of await this.#summed('insight_build_days', ['day'], sums, repoIds, from, to)) {
      const day = dayOf(Number(row.day));
      day.builds = Number(row.builds);
      day.successes = Number(row.successes);
      day.durationSumMs = Number(row.duration_sum);
      day.queueSumMs = Number(row.queue_sum);
    }
    const keys = ['day', 'metric', 'bucket'];
    for (const row of await this.#summed('insight_build_buckets', keys, ['n'], repoIds, from, to)) {
      const day = dayOf(Number(row.day));
      (Number(row.metric) === 0 ? day.durations : day.queues).set(Number(row.bucket), Number(row.n));
    }
    return [...days.values()].sort((a, b) => a.day - b.day);
  }

  async stepDays(repoIds: readonly number[], from: number, to: number): Promise<StepDay[]> {
    const sums = ['runs', 'failures', 'duration_sum'];
    const rows = await this.#summed('insight_step_days', ['day', 'name'], sums, repoIds, from, to);
    return rows
      .map((row) => ({
        day: Number(row.day),
        name: String(row.name),
        runs: Number(row.runs),
        failures: Number(row.failures),
        durationSumMs: Number(row.duration_sum),
      }))
      .sort((a, b) => a.day - b.day || a.name.localeCompare(b.name));
  }

  async testTotals(
    repoIds: readonly number[],
    from: number,
    to: number,
    limit: number,
  ): Promise<TestTotal[]> {
    const rows = await this.#summed(
      'insight_test_days',
      ['case_id'],
      ['failures', 'flaky'],
      repoIds,
      from,
      to,
    );
    return rows
      .map((row) => ({
        caseId: Number(row.case_id),
        failures: Number(row.failures),
        flaky: Number(row.flaky),
      }))
      .sort((a, b) => b.failures - a.failures || b.flaky - a.flaky || a.caseId - b.caseId)
      .slice(0, limit);
  }

  async runnerDays(repoIds: readonly number[], from: number, to: number): Promise<RunnerDay[]> {
    const rows = await this.#summed(
      'insight_runner_days',
      ['day', 'kind'],
      ['stages', 'busy_ms'],
      repoIds,
      from,
      to,
    );
    return rows
      .map((row) => ({
        day: Number(row.day),
        kind: String(row.kind),
        stages: Number(row.stages),
        busyMs: Number(row.busy_ms),
      }))
      .sort((a, b) => a.day - b.day || a.kind.localeCompare(b.kind));
  }

  async cacheDays(repoIds: readonly number[], from: number, to: number): Promise<CacheDay[]> {
    const rows = await this.#summed('insight_cache_days', ['day'], ['hits', 'misses'], repoIds, from, to);
    return rows
      .map((row) => ({ day: Number(row.day), hits: Number(row.hits), misses: Number(row.misses) }))
      .sort((a, b) => a.day - b.day);
  }

  totals(): Promise<InsightTotals> {
    return readTotals(this.#db);
  }

  uncounted(afterId: number, before: number, limit: number): Promise<number[]> {
    return uncountedBuilds(this.#db, afterId, before, limit);
  }
}
