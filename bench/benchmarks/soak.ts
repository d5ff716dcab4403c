import { datasourceSetting, testDialects, type TestDatabase } from '../../test/support/databases.js';
import type { Benchmark } from '../lib/benchmark.js';
import { oneStepPipeline } from '../lib/one-step.js';
import type { BenchResult } from '../lib/result.js';
import { readSoakGauges, type RunnerProbe } from '../lib/soak-gauges.js';
import { waitFor, type SvcProcess } from '../../test/e2e/system.js';
import { growingHolders, soakFigures, type SoakRow } from '../lib/soak-summary.js';
import { soakRound, type RoundPlan, type RoundTally } from '../lib/soak-traffic.js';
import { round } from '../lib/stats.js';
import { sshSoak } from '../lib/soak-ssh.js';
import { startSvcSystem } from '../lib/svc-system.js';

const RUNNERS = 2;
const CAPACITY = 4;
/** The administrator whose token reads /metrics?gc=full (SVC_USER_CREATE). */
const ADMIN_TOKEN = 'soak-admin-token-0123456789abcde';
/** After a round, idle keep-alive connections close (Node's 5 s) and runners clean up. */
const SETTLE_MS = 6_000;
/** Each build prints 200 lines, with a pause between halves that live viewers see. */
const COMMANDS = ['seq 1 100 | sed "s/^/soak line /"', 'sleep 1', 'seq 101 200 | sed "s/^/soak line /"'];
const PIPELINE = oneStepPipeline(COMMANDS);

/** How long the soak runs: a few short rounds by default, rounds of 100 builds for `--long` (30 min) or `--minutes=N`. */
interface SoakLength {
  readonly minRounds: number;
  readonly minutes: number;
  readonly plan: RoundPlan;
}

function lengthOf(flags: readonly string[]): SoakLength {
  const minutes = Number(flags.find((f) => f.startsWith('--minutes='))?.slice('--minutes='.length) ?? NaN);
  const long = flags.includes('--long') || Number.isFinite(minutes);
  return long
    ? {
        minRounds: 3,
        minutes: Number.isFinite(minutes) ? minutes : 30,
        plan: { builds: 100, pipeline: PIPELINE, cancelEvery: 10, restartEvery: 15, deadlineMs: 10 * 60_000 },
      }
    : {
        minRounds: 4,
        minutes: 0,
        plan: { builds: 30, pipeline: PIPELINE, cancelEvery: 10, restartEvery: 15, deadlineMs: 5 * 60_000 },
      };
}

function describeRound(row: SoakRow, tally: RoundTally): string {
  const { server, runners } = row.reading;
  return (
    `round ${row.round}: ${row.builds} builds so far, ${round(row.seconds, 0)} s; ` +
    `this round ${JSON.stringify(tally.statuses)}, ${tally.cancelled} cancelled, ${tally.restarted} restarted, ` +
    `${tally.apiReads} API reads, ${tally.eventStreams} event streams, ${tally.logsFollowed} logs followed; ` +
    `server RSS ${round(server.rssFoundMiB, 1)} MiB as found, ${round(server.rssMiB, 1)} after GC (own ${round(server.anonMiB, 1)}), heap after GC ${round(server.heapAfterGcMiB, 2)} MiB ` +
    `(code ${round(server.codeMiB, 2)}, old ${round(server.oldMiB, 2)}) of ${round(server.heapTotalMiB, 1)} held, ` +
    `${server.statements} statements, external ${round(server.externalMiB, 1)} MiB, ` +
    `handles ${server.handles}, fds ${server.fds}, db connections ${server.dbConnections}; ` +
    `runners RSS ${runners.map((r) => `${round(r.rssFoundMiB, 1)}→${round(r.rssMiB, 1)}`).join('/')} MiB (found→after GC), ` +
    `heap after GC ${runners.map((r) => round(r.heapAfterGcMiB, 2)).join('/')} MiB of ${runners.map((r) => round(r.heapTotalMiB, 1)).join('/')} held, ` +
    `external ${runners.map((r) => round(r.externalMiB, 1)).join('/')}, V8 malloc ${runners.map((r) => round(r.v8MallocedMiB, 1)).join('/')} MiB, ` +
    `handles ${runners.map((r) => r.handles).join('/')}, fds ${runners.map((r) => r.fds).join('/')}`
  );
}

const RUNNER_PASSWORD = 'soak-runner-dashboard';

/** Where a runner's /metrics is: the port it chose, as its start-up line says. */
async function runnerProbe(runner: SvcProcess): Promise<RunnerProbe> {
  const port = await waitFor(
    'the runner to say where it listens',
    () => Promise.resolve(/listening on https?:\/\/[^\s"]+:(\d+)/.exec(runner.log())?.[1]),
    30_000,
  );
  return {
    pid: runner.child.pid ?? 0,
    metricsUrl: `http://127.0.0.1:${port}/metrics`,
    authorization: `Basic ${Buffer.from(`:${RUNNER_PASSWORD}`).toString('base64')}`,
  };
}

/** One soak on one database: rounds until both the round count and the minutes are reached. */
async function soakOn(
  database: 'SQLite' | 'PostgreSQL',
  length: SoakLength,
  runnerKind: 'docker' | 'ssh',
): Promise<BenchResult[]> {
  let created: TestDatabase | undefined;
  const ssh = runnerKind === 'ssh' ? await sshSoak(COMMANDS) : undefined;
  const plan = ssh === undefined ? length.plan : { ...length.plan, pipeline: ssh.pipeline };
  const label = ssh === undefined ? database : `${database}, ssh runners`;
  const serverEnv: Record<string, string> = {
    SVC_USER_CREATE: `username:soak-admin,machine:true,admin:true,token:${ADMIN_TOKEN}`,
  };
  if (database === 'PostgreSQL') {
    const dialect = testDialects().find((d) => d.name === 'PostgreSQL');
    if (dialect === undefined || dialect.skip) throw new Error('PostgreSQL is not available');
    created = await dialect.create();
    serverEnv.SVC_DATABASE_DATASOURCE = datasourceSetting(created.datasource);
  }
  const system = await startSvcSystem({
    runners: RUNNERS,
    runnerKind,
    // The dashboard's password also opens each runner's /metrics, read after every round.
    runnerEnv: { SVC_RUNNER_CAPACITY: String(CAPACITY), SVC_UI_PASSWORD: RUNNER_PASSWORD, ...ssh?.runnerEnv },
    serverEnv,
    // A GitHub Enterprise Server without rate limiting (its default): each build costs a few API
    // calls, and GitHub's 5,000 an hour ran out after ~900 builds, failing every build after.
    githubRateLimit: 1_000_000,
  });
  try {
    await ssh?.ready(system);
    const runnerProbes = await Promise.all(system.runners.map(runnerProbe));
    const started = performance.now();
    const rows: SoakRow[] = [];
    const totals = {
      cancelled: 0,
      restarted: 0,
      streams: 0,
      followed: 0,
      reads: 0,
      statuses: {} as Record<string, number>,
    };
    let builds = 0;
    while (rows.length < length.minRounds || performance.now() - started < length.minutes * 60_000) {
      const tally = await soakRound(system, ADMIN_TOKEN, plan);
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      builds += Object.values(tally.statuses).reduce((a, b) => a + b, 0);
      const row: SoakRow = {
        round: rows.length + 1,
        builds,
        seconds: (performance.now() - started) / 1000,
        reading: await readSoakGauges(system.url, ADMIN_TOKEN, system.server.child.pid ?? 0, runnerProbes),
      };
      rows.push(row);
      totals.cancelled += tally.cancelled;
      totals.restarted += tally.restarted;
      totals.streams += tally.eventStreams;
      totals.followed += tally.logsFollowed;
      totals.reads += tally.apiReads;
      for (const [status, n] of Object.entries(tally.statuses))
        totals.statuses[status] = (totals.statuses[status] ?? 0) + n;
      process.stderr.write(`soak (${label}): ${describeRound(row, tally)}\n`);
      process.stderr.write(`soak (${label}): row ${JSON.stringify({ database: label, ...row, tally })}\n`);
    }
    const notes =
      `${RUNNERS} svc runner ${runnerKind} × capacity ${CAPACITY}; builds by status ${JSON.stringify(totals.statuses)}, ` +
      `${totals.cancelled} cancelled, ${totals.restarted} restarted, ${totals.reads} API reads, ` +
      `${totals.streams} event streams opened and dropped, ${totals.followed} live logs followed; ` +
      `largest maps at the end: ${growingHolders(rows)}`;
    return soakFigures(label, rows, notes);
  } finally {
    await system.close();
    await created?.drop();
    await ssh?.stop();
  }
}

/**
 * Soak (issue 31): a server with real Docker runners takes rounds of builds with logs, API reads,
 * event streams, live logs, cancels and restarts; after each round the server collects all garbage
 * and its gauges are read (GET /metrics?gc=full), the runners' the same way (their /metrics, behind
 * the dashboard's password). On SQLite, and on
 * PostgreSQL (a fresh database) when SVC_TEST_SQL_B_DATASOURCE is set. A few minutes by default;
 * `--long` runs each database 30 minutes (`--minutes=N`), `--database=sqlite|postgres` one of them,
 * `--runner=ssh` SSH runners on a real sshd in place of the Docker ones.
 */
export const soak: Benchmark = {
  name: 'soak',
  needs: ['docker'],
  async run(ctx) {
    const length = lengthOf(ctx.flags);
    const only = ctx.flags.find((f) => f.startsWith('--database='))?.slice('--database='.length);
    const databases = (['SQLite', 'PostgreSQL'] as const).filter(
      (d) =>
        (only === undefined || d.toLowerCase().startsWith(only.toLowerCase())) &&
        (d === 'SQLite' || process.env.SVC_TEST_SQL_B_DATASOURCE !== undefined),
    );
    // `--runner=ssh`: svc runner ssh on a real sshd instead of svc runner docker.
    const runnerKind = ctx.flags.includes('--runner=ssh') ? 'ssh' : 'docker';
    const results: BenchResult[] = [];
    for (const database of databases) results.push(...(await soakOn(database, length, runnerKind)));
    return results;
  },
};
