/*
 * dispatch: how fast svc's runner protocol hands queued stages to runners, on each database.
 * In this process: svc's real fastify server with registerRpcRoutes on a real store (a fresh
 * database each), listening on loopback. In one other process, as runners are in a deployment:
 * 100 simulated runners (svc's poller and RPC client, HTTP on loopback) that accept what they are
 * offered and report it running, then successful.
 */
import { sql, type Kysely } from 'kysely';
import type { Repo } from '../../src/core/repo.js';
import type { Store } from '../../src/core/store.js';
import { connect } from '../../src/store/dialects/connect.js';
import { openStore } from '../../src/store/index.js';
import type { Tables } from '../../src/store/tables.js';
import type { Connection } from '../../src/store/dialects/adapter.js';
import { testDialects, type TestDialect } from '../../test/support/databases.js';
import type { Benchmark } from '../lib/benchmark.js';
import type { BenchResult } from '../lib/result.js';
import {
  benchBuild,
  benchRepo,
  benchStage,
  queueBuilds,
  RPC_SECRET,
  startRpcServer,
  type RpcServer,
} from '../lib/rpc-server.js';
import type { Fleet } from '../lib/runner-fleet.js';
import { RunnerProcess } from '../lib/runner-process.js';
import { countStatements, statementsSent } from '../lib/sql-count.js';
import { median, percentile, round } from '../lib/stats.js';

/** 2,000 builds of 5 parallel stages: 10,000 stages queued up front. */
const BUILDS = 2_000;
const STAGES_PER_BUILD = 5;
const STAGES = BUILDS * STAGES_PER_BUILD;
const REPOS = 20;
const RUNNERS = 100;
/** Latency: stages queued one at a time while every runner waits, and the pause between them. */
const SAMPLES = 200;
const SPACING_MS = 10;
/** A throughput run that takes longer is cut there and reported with what it did. */
const RUN_LIMIT_MS = 60_000;
/** Stages of this type suit no runner: the baseline claims them. */
const BASELINE_TYPE = 'bench-baseline';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits for `check` (every 5 ms) up to `ms`; false when it never held. */
async function until(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = performance.now() + ms;
  while (!check()) {
    if (performance.now() > deadline) return false;
    await sleep(5);
  }
  return true;
}

/**
 * The physical limit of the database: one statement that claims the oldest queued stage of
 * `type` with an id above `after`, as a queue in the database at its simplest would (no HTTP, no
 * reads, nothing else). The claimed stage leaves the pending ones (`running`), so that claims never
 * walk over earlier ones. MySQL updates the first row in order itself (it cannot update a table it
 * selects from in a subquery); the others update the row a subquery picks.
 */
async function claimOldest(direct: Connection, type: string, after: number): Promise<boolean> {
  const now = Date.now();
  const set = sql`status = 'running', machine = 'baseline', heartbeat = ${now}, updated = ${now}, version = version + 1`;
  const queued = sql`status = 'pending' and machine = '' and type = ${type} and id > ${after}`;
  const statement =
    direct.adapter.product === 'MySQL'
      ? sql`update stages set ${set} where ${queued} order by id limit 1`
      : sql`update stages set ${set} where id = (select id from stages where ${queued} order by id limit 1)`;
  const result = await statement.execute(direct.db);
  return Number(result.numAffectedRows ?? 0) === 1;
}

interface Throughput {
  rate: number;
  stages: number;
  acceptedMs: number;
  doneMs: number;
  statements: number;
  /** CPU time of this process (the server) per stage done, milliseconds. */
  serverCpu: number;
  /** CPU time of the runners' process per stage done, milliseconds. */
  runnerCpu: number;
  cut: boolean;
  failures: string;
}

/** What went wrong for the runners, for the notes ('' when nothing). */
function failures(fleet: Fleet): string {
  if (fleet.failures === 0) return '';
  return `; runners' requests failed ${fleet.failures} time(s), e.g. ${fleet.errors.join(' | ')}`;
}

/** 10,000 stages queued up front, then the runners start: time until all are accepted and done. */
async function svcThroughput(
  store: Store,
  db: Kysely<Tables>,
  server: RpcServer,
  repos: readonly Repo[],
): Promise<Throughput> {
  await queueBuilds(store, repos, BUILDS, STAGES_PER_BUILD);
  const fleet = new RunnerProcess(server.url, RPC_SECRET, RUNNERS);
  const statements = statementsSent();
  const cpu = process.cpuUsage();
  const started = performance.now();
  fleet.start();
  const finished = await until(() => fleet.done >= STAGES, RUN_LIMIT_MS);
  const elapsed = performance.now() - started;
  const { user, system } = process.cpuUsage(cpu);
  const sent = statementsSent() - statements;
  const last = fleet.last();
  await fleet.stop();
  // The server hears of the stopped runners' requests going away when it next reads its sockets.
  await until(() => server.queue.waiting === 0, 10_000);
  // What a cut run left queued would be offered in the latency run: end it.
  if (!finished) await sql`update stages set status = 'killed' where status = 'pending'`.execute(db);
  return {
    rate: (fleet.done / elapsed) * 1000,
    stages: fleet.done,
    acceptedMs: last.accepted - started,
    doneMs: elapsed,
    statements: sent / Math.max(1, fleet.done),
    serverCpu: (user + system) / 1000 / Math.max(1, fleet.done),
    runnerCpu: fleet.cpu / Math.max(1, fleet.done),
    cut: !finished,
    failures: failures(fleet),
  };
}

/** The same number of claims in a tight loop on the database, one statement each. */
async function baselineThroughput(store: Store, direct: Connection, repos: readonly Repo[]): Promise<number> {
  const stages = await queueBuilds(store, repos, BUILDS, STAGES_PER_BUILD, { type: BASELINE_TYPE });
  const started = performance.now();
  // Claims go oldest first: each starts where the one before took its stage, as the queue's
  // reads do (a planner that walks the primary key would otherwise step over every claimed one).
  let after = (stages[0]?.id ?? 1) - 1;
  for (const stage of stages) {
    if (!(await claimOldest(direct, BASELINE_TYPE, after)))
      throw new Error(`baseline claim of ${stage.id} found nothing`);
    after = stage.id;
  }
  return (STAGES / (performance.now() - started)) * 1000;
}

interface Latency {
  svc: number[];
  baseline: number[];
  statements: number;
  failures: string;
}

/**
 * With every runner waiting (queue empty), builds of one stage are created one at a time: the time
 * from the creation returning (then the queue is woken, as the trigger does) to the runner's accept
 * answered. Interleaved with the baseline: one bare claim statement of a stage just queued.
 */
async function latency(store: Store, direct: Connection, server: RpcServer, repo: Repo): Promise<Latency> {
  const waiting = () => server.queue.waiting;
  const fleet = new RunnerProcess(server.url, RPC_SECRET, RUNNERS);
  fleet.start();
  const samples: Latency = { svc: [], baseline: [], statements: 0, failures: '' };
  let statements = 0;
  try {
    for (let i = 0; i < SAMPLES + 1; i++) {
      if (!(await until(() => waiting() >= RUNNERS, 10_000))) {
        throw new Error(`only ${waiting()} of ${RUNNERS} runners were waiting for work`);
      }
      const before = statementsSent();
      const { stages } = await store.builds.create(benchBuild(repo), [benchStage(1)]);
      const queued = performance.now();
      server.queue.wake();
      const stage = stages[0];
      if (stage === undefined) throw new Error('the build has no stage');
      const accepted = await Promise.race([
        fleet.whenAccepted(stage.id),
        sleep(10_000).then(() => undefined),
      ]);
      if (accepted === undefined) throw new Error(`stage ${stage.id} was not accepted within 10 s`);
      await fleet.whenDone(stage.id);
      // The first round warms up.
      if (i > 0) {
        samples.svc.push(accepted - queued);
        statements += statementsSent() - before;
      }

      const baseline = await store.builds.create(benchBuild(repo), [benchStage(1, BASELINE_TYPE)]);
      const after = (baseline.stages[0]?.id ?? 1) - 1;
      const claiming = performance.now();
      if (!(await claimOldest(direct, BASELINE_TYPE, after))) throw new Error('baseline claim found nothing');
      if (i > 0) samples.baseline.push(performance.now() - claiming);
      await sleep(SPACING_MS);
    }
  } finally {
    await fleet.stop();
  }
  samples.statements = statements / SAMPLES;
  samples.failures = failures(fleet);
  return samples;
}

async function measure(dialect: TestDialect, skipped: string): Promise<BenchResult[]> {
  const database = await dialect.create();
  const store = await openStore({ datasource: database.datasource });
  const direct = await connect(database.datasource, () => undefined);
  const server = await startRpcServer(store);
  try {
    const repos: Repo[] = [];
    for (let i = 0; i < REPOS; i++) repos.push(await store.repos.create(benchRepo()));
    process.stderr.write(`dispatch: ${dialect.name}: throughput…\n`);
    const svc = await svcThroughput(store, direct.db, server, repos);
    const baseline = await baselineThroughput(store, direct, repos);
    process.stderr.write(
      `dispatch: ${dialect.name}: ${round(svc.rate, 1)} stages/s (${svc.stages} done${svc.cut ? ', cut' : ''}, ${round(svc.statements, 1)} statements each, server CPU ${round(svc.serverCpu, 2)} ms, runners' CPU ${round(svc.runnerCpu, 2)} ms each), baseline ${round(baseline, 1)} claims/s; latency…\n`,
    );
    const lat = await latency(store, direct, server, repos[0]!);
    process.stderr.write(
      `dispatch: ${dialect.name}: queue→accept p50 ${round(median(lat.svc), 2)} ms, p99 ${round(percentile(lat.svc, 0.99), 2)} ms, baseline ${round(median(lat.baseline), 2)} ms\n`,
    );
    const also = skipped === '' ? '' : `; ${skipped}`;
    const cut = svc.cut
      ? `; CUT after ${RUN_LIMIT_MS / 1000} s with ${svc.stages} of ${STAGES} stages done`
      : '';
    const svcLatency = median(lat.svc);
    const baselineLatency = median(lat.baseline);
    return [
      {
        name: 'dispatch',
        metric: `stages per second (${dialect.name})`,
        svc: round(svc.rate, 1),
        baseline: round(baseline, 1),
        ratio: round(baseline / svc.rate),
        unit: 'stages/s',
        runs: 1,
        p50: round(svc.rate, 1),
        p99: round(svc.rate, 1),
        notes:
          `${STAGES} stages (${BUILDS} builds × ${STAGES_PER_BUILD} parallel stages, ${REPOS} repos) queued up front, ${RUNNERS} runners (svc poller + RPC client over loopback HTTP, all in one process apart from the server's) doing request → accept → running → success; ` +
          (svc.cut
            ? `stages/s = stages done / time run; `
            : `stages/s = stages done / time until all done (all accepted after ${round(svc.acceptedMs / 1000, 2)} s, all done after ${round(svc.doneMs / 1000, 2)} s); `) +
          `${round(svc.statements, 1)} SQL statements, ${round(svc.serverCpu, 2)} ms of server CPU and ${round(svc.runnerCpu, 2)} ms of the runners' CPU per stage; ` +
          `baseline: the same number of one-statement claims of the oldest queued stage in a tight loop on the database (no HTTP); ratio = baseline / svc (higher = slower); one run each, svc then baseline` +
          cut +
          svc.failures +
          also,
      },
      {
        name: 'dispatch',
        metric: `queue→accept latency (${dialect.name})`,
        svc: round(svcLatency, 2),
        baseline: round(baselineLatency, 2),
        ratio: round(svcLatency / baselineLatency),
        unit: 'ms',
        runs: lat.svc.length,
        p50: round(svcLatency, 2),
        p99: round(percentile(lat.svc, 0.99), 2),
        notes:
          `${RUNNERS} runners long-polling on an empty queue; ${SAMPLES} one-stage builds created one at a time (${SPACING_MS} ms apart, each after the previous one was done): build creation returned (then the queue is woken, as the trigger does) → the runner's accept answered; ` +
          `${round(lat.statements, 1)} SQL statements per stage from creation to success; ` +
          `baseline: one bare claim statement of a just-queued stage, interleaved; medians, p50/p99 of svc` +
          lat.failures +
          also,
      },
    ];
  } finally {
    await server.close();
    await direct.db.destroy();
    await store.close();
    await database.drop();
  }
}

/** 10,000 queued stages and 100 runners: stages per second and queue → accept latency, per database. */
export const dispatch: Benchmark = {
  name: 'dispatch',
  needs: [],
  async run() {
    countStatements();
    const dialects = testDialects();
    const missing = dialects.filter((d) => d.skip).map((d) => d.name);
    for (const name of missing) {
      process.stderr.write(
        `dispatch: ${name} is not available (start it with: source <(.ci/services.sh start)); skipped\n`,
      );
    }
    const skipped = missing.length === 0 ? '' : `not measured (not available): ${missing.join(', ')}`;
    const results: BenchResult[] = [];
    for (const dialect of dialects.filter((d) => !d.skip)) results.push(...(await measure(dialect, skipped)));
    return results;
  },
};
