/*
 * failover (issue 31): two `svc server` processes on one database behind haproxy, a Docker runner of
 * capacity 4 talking to the balancer, and a cron job every 10 s (SVC_CRON_INTERVAL 2 s). Each round
 * pushes four builds whose step prints 300 numbered lines (one every 30 ms), and once they all run
 * kills one server (SIGKILL; every fifth round SIGTERM) at a moment that walks the step from its
 * first lines to its last batch, its log's upload and its stage's end; the server is started again
 * after the round. Counted over every round, on PostgreSQL and MariaDB: lines lost and duplicated
 * in the stored logs, builds not green, and cron builds per scheduled slot. No baseline: the
 * target is zero. SVC_BENCH_FAILOVER_ROUNDS sets the rounds per database (default 20).
 */
import { startRunner } from '../../test/e2e/system.js';
import {
  cronRecord,
  failoverRound,
  type Disturbance,
  type RoundResult,
} from '../../test/faults/failover-round.js';
import { HaCluster, REPO } from '../../test/faults/ha-cluster.js';
import { testDialects, type TestDialect } from '../../test/support/databases.js';
import type { Benchmark } from '../lib/benchmark.js';
import type { BenchResult } from '../lib/result.js';
import { percentile, round } from '../lib/stats.js';

/** Milliseconds after every step runs; the step prints for about 10.5 s, then uploads its log. */
const MOMENTS = [500, 2_000, 4_000, 6_000, 8_000, 9_000, 9_500, 10_000, 10_500, 11_500];
const BUILDS = 4;

function rounds(): number {
  const asked = Number(process.env.SVC_BENCH_FAILOVER_ROUNDS ?? '20');
  return Number.isInteger(asked) && asked > 0 ? asked : 20;
}

/**
 * The i-th round's disturbance: moments in turn, servers alternating (swapped on each pass over the
 * moments, so that each moment hits both), every fifth a SIGTERM.
 */
function disturbance(i: number): Disturbance {
  return {
    server: (i + Math.floor(i / MOMENTS.length)) % 2 === 0 ? 'a' : 'b',
    how: i % 5 === 4 ? 'stop' : 'kill',
    after: MOMENTS[i % MOMENTS.length] ?? 0,
  };
}

async function onDatabase(dialect: TestDialect, count: number): Promise<BenchResult[]> {
  const database = await dialect.create();
  const cluster = await HaCluster.start(database, { SVC_CRON_INTERVAL: '2s' });
  const runner = startRunner(cluster.balancer.port, 'failover', [], { SVC_RUNNER_CAPACITY: String(BUILDS) });
  const results: RoundResult[] = [];
  const started = Date.now();
  try {
    let cronMade = false;
    for (let i = 0; i < count; i++) {
      const result = await failoverRound(cluster, disturbance(i), { count: BUILDS, label: `round ${i}` });
      results.push(result);
      process.stderr.write(`failover ${dialect.name}: ${JSON.stringify(result)}\n`);
      if (!cronMade) {
        // After the first push, so that the branch's head has the cron pipeline.
        const made = await cluster.api(cluster.balancer.port, `/api/repos/${REPO}/cron`, {
          method: 'POST',
          body: { name: 'tick', expr: '*/10 * * * * *', branch: 'main' },
        });
        if (made.status !== 200) throw new Error(`creating the cron job was answered ${made.status}`);
        cronMade = true;
      }
    }
  } finally {
    await runner.stop();
    await cluster.close();
    await database.drop();
  }
  const minutes = (Date.now() - started) / 60_000;
  return summary(dialect.name, results, cronRecord(cluster), minutes);
}

function summary(
  db: string,
  results: readonly RoundResult[],
  cron: ReturnType<typeof cronRecord>,
  minutes: number,
): BenchResult[] {
  const builds = results.flatMap((r) => r.builds);
  const sum = (pick: (b: (typeof builds)[number]) => number): number =>
    builds.reduce((total, b) => total + pick(b), 0);
  const kills = results.filter((r) => r.disturbance.how === 'kill').length;
  const what = `${results.length} rounds (${kills} SIGKILL, ${results.length - kills} SIGTERM) of ${BUILDS} builds × 300 lines on ${db}`;
  const recoveries = results.map((r) => r.recovery);
  const perSlot = [...cron.slots.values()].map((b) => b.length);
  const figure = (metric: string, value: number, unit: string, notes: string): BenchResult => ({
    name: 'failover',
    metric: `${metric} (${db})`,
    svc: value,
    baseline: null,
    ratio: null,
    unit,
    runs: results.length,
    p50: value,
    p99: value,
    notes,
  });
  return [
    figure(
      'lines lost',
      sum((b) => b.lost),
      'lines',
      `${what}; ${builds.length * 300} lines expected`,
    ),
    figure(
      'lines duplicated',
      sum((b) => b.duplicated),
      'lines',
      what,
    ),
    figure('builds not green', builds.filter((b) => b.status !== 'success').length, 'builds', what),
    {
      ...figure('cron builds per slot, most', Math.max(0, ...perSlot), 'builds', ''),
      notes: `${cron.slots.size} slots built in ${round(minutes, 1)} min (a slot every 10 s; a killed lease holder's jobs stop for up to 40 s); ${cron.skipped} looks made no build, ${cron.failed} failed`,
    },
    {
      ...figure('last build done after the kill', percentile(recoveries, 0.5), 'ms', what),
      p50: percentile(recoveries, 0.5),
      p99: percentile(recoveries, 0.99),
    },
  ];
}

export const failover: Benchmark = {
  name: 'failover',
  needs: ['docker', 'mariadb', 'postgres'],
  async run() {
    const results: BenchResult[] = [];
    for (const dialect of testDialects().filter((d) => d.name !== 'SQLite' && !d.skip))
      results.push(...(await onDatabase(dialect, rounds())));
    return results;
  },
};
