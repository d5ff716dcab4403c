/*
 * insights: the build insights of issue 36 on a database of 200,000 builds and 5,000,000 test
 * results, on SQLite, MariaDB and PostgreSQL. A real `svc server` process serves
 * `/api/insights/…`; this process asks each question N times in a row, each request followed by the
 * baseline: the raw SQL of the same answer's heaviest parts (the days' builds and sums, the ten
 * most failing tests) read from builds and test_results instead of the rollups. Target: every
 * question's p99 at most 100 ms.
 */
import { testDialects, type TestDialect } from '../../test/support/databases.js';
import type { Benchmark } from '../lib/benchmark.js';
import { serveDatabase, timedGet } from '../lib/scale-server.js';
import { INSIGHTS_SCALE, rawInsightSql } from '../lib/insights-seed-sql.js';
import { seedInsights, type InsightsSeeded } from '../lib/insights-seed.js';
import { openRaw, type RawDb } from '../lib/raw-db.js';
import { timeComparison, type BenchResult } from '../lib/result.js';
import { percentile, round } from '../lib/stats.js';

const NAME = 'insights';
const WARM_UP = 3;
const SAMPLES = 100;
/**
 * The baseline reads millions of rows — seconds on SQLite and PostgreSQL, over a minute on MariaDB
 * with its default buffer pool — so it runs once per question, after svc's first request.
 */
const BASELINE_EVERY = SAMPLES;
const DAY = 86_400_000;

/** What the metrics' build counters and duration sum would cost without the rollups. */
const METRICS_BASELINE = `SELECT COUNT(*) AS builds, SUM(CASE WHEN status = 'success' THEN 1 ELSE 0 END) AS successes,
  SUM(finished - started) AS duration_sum FROM builds WHERE finished > 0`;

const say = (line: string): void => void process.stderr.write(`${NAME}: ${line}\n`);

/** The questions: a repository of 100,000 builds over 7, 30 and 90 days; an organisation of 20 repositories. */
const QUESTIONS = [
  { metric: 'big repository, 7 days', path: '/api/insights/repos/big/app?days=7', repos: [1], days: 7 },
  { metric: 'big repository, 30 days', path: '/api/insights/repos/big/app?days=30', repos: [1], days: 30 },
  { metric: 'big repository, 90 days', path: '/api/insights/repos/big/app?days=90', repos: [1], days: 90 },
  {
    metric: 'organisation of 20 repositories, 90 days',
    path: '/api/insights/orgs/org-0?days=90',
    // The repositories named org-0/…: i % 5 = 0, i > 1.
    repos: Array.from({ length: 20 }, (_, k) => 5 * (k + 1)),
    days: 90,
  },
] as const;

async function baseline(raw: RawDb, question: (typeof QUESTIONS)[number]): Promise<number> {
  const since = (Math.floor(Date.now() / DAY) - question.days + 1) * DAY;
  const sql = rawInsightSql(question.repos);
  const started = performance.now();
  await raw.all(sql.builds, [since]);
  await raw.all(sql.tests, [since]);
  return performance.now() - started;
}

/**
 * GET /metrics as Prometheus scrapes it: the insight counters and histograms add every repository's
 * rollups up over all days. Baseline: the raw SQL of its build counts and durations over builds.
 */
async function scrape(
  url: string,
  raw: RawDb,
  dialect: string,
  seeded: InsightsSeeded,
): Promise<BenchResult> {
  const first = (await timedGet(`${url}/metrics`, seeded.token)).body;
  const finished = /^svc_builds_finished_total (\d+)$/m.exec(first)?.[1];
  if (finished !== String(INSIGHTS_SCALE.builds))
    throw new Error(`/metrics: svc_builds_finished_total is ${finished}, not ${INSIGHTS_SCALE.builds}`);
  const svc: number[] = [];
  const raws: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    svc.push((await timedGet(`${url}/metrics`, seeded.token)).ms);
    if (i % 20 === 0) {
      const started = performance.now();
      await raw.all(METRICS_BASELINE);
      raws.push(performance.now() - started);
    }
  }
  say(
    `${dialect}: GET /metrics: p99 ${round(percentile(svc, 0.99), 1)} ms; raw SQL p99 ${round(percentile(raws, 0.99), 1)} ms`,
  );
  return timeComparison(
    {
      name: NAME,
      metric: `GET /metrics (${dialect})`,
      notes:
        `${SAMPLES} sequential scrapes of an svc server process with ${INSIGHTS_SCALE.builds} builds counted in the rollups (Drone's gauges, the insight counters and histograms, the process's own), ` +
        `every 20th followed by the baseline: the build counts, successes and duration sum over the builds table (${raws.length} runs); target: svc p99 ≤ 100 ms, as the insights API`,
    },
    svc,
    raws,
  );
}

async function measure(dialect: TestDialect): Promise<BenchResult[]> {
  const database = await dialect.create();
  try {
    say(`${dialect.name}: seeding…`);
    const seeded: InsightsSeeded = await seedInsights(database.datasource, (line) =>
      say(`${dialect.name}: ${line}`),
    );
    say(`${dialect.name}: seeded ${seeded.results} test results in ${seeded.seconds.toFixed(0)} s`);
    // The metrics readable without an administrator's token: the seeded owner is none.
    const { url, server } = await serveDatabase(database.datasource, {
      SVC_METRICS_ANONYMOUS_ACCESS: 'true',
    });
    const raw = await openRaw(database.datasource);
    const results: BenchResult[] = [];
    try {
      for (const question of QUESTIONS) {
        let answered = '';
        for (let i = 0; i < WARM_UP; i++)
          answered = (await timedGet(`${url}${question.path}`, seeded.token)).body;
        const answer = JSON.parse(answered) as { builds?: { total?: number }; daily?: unknown[] };
        if ((answer.builds?.total ?? 0) === 0 || answer.daily?.length !== question.days)
          throw new Error(`${question.path}: unexpected answer ${answered.slice(0, 300)}`);
        const svc: number[] = [];
        const raws: number[] = [];
        for (let i = 0; i < SAMPLES; i++) {
          svc.push((await timedGet(`${url}${question.path}`, seeded.token)).ms);
          if (i % BASELINE_EVERY === 0) raws.push(await baseline(raw, question));
        }
        say(
          `${dialect.name}: ${question.metric}: p99 ${round(percentile(svc, 0.99), 1)} ms (${answer.builds?.total} builds); raw SQL p99 ${round(percentile(raws, 0.99), 1)} ms`,
        );
        results.push(
          timeComparison(
            {
              name: NAME,
              metric: `${question.metric} (${dialect.name})`,
              notes:
                `${INSIGHTS_SCALE.repos} repositories, ${INSIGHTS_SCALE.builds} builds over ${INSIGHTS_SCALE.days} days, ${seeded.results} test results, seeded in ${seeded.seconds.toFixed(0)} s; ` +
                `${SAMPLES} sequential GET ${question.path} to an svc server process (the whole answer: builds, percentiles, steps, tests, runners, caches, from the rollups), ` +
                `the first followed by the baseline: the raw SQL of its days' builds and its ten most failing tests over builds and test_results (${raws.length} runs); ` +
                `baseline p99 ${round(percentile(raws, 0.99), 1)} ms; target: svc p99 ≤ 100 ms`,
            },
            svc,
            raws,
          ),
        );
      }
      results.push(await scrape(url, raw, dialect.name, seeded));
    } finally {
      await raw.close();
      await server.stop();
    }
    return results;
  } finally {
    await database.drop();
  }
}

/** Insights questions on 200,000 builds and 5,000,000 test results, on every database. */
export const insights: Benchmark = {
  name: NAME,
  needs: ['mariadb', 'postgres'],
  /** `--only=MariaDB,PostgreSQL` measures those databases only. */
  async run(ctx) {
    const only = ctx.flags
      .find((flag) => flag.startsWith('--only='))
      ?.slice('--only='.length)
      .split(',');
    const results: BenchResult[] = [];
    for (const dialect of testDialects().filter((d) => only === undefined || only.includes(d.name)))
      results.push(...(await measure(dialect)));
    return results;
  },
};
