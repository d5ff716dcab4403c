/*
 * api-scale: svc's busiest reads on a database of a large installation — 1,000 repositories,
 * 200,000 builds of 3 stages of 5 steps — on SQLite and PostgreSQL. A real `svc server` process (the
 * built command) serves the API; this process requests each route N times in a row (fetch, kept-alive
 * connection), each request followed by the raw SQL of the same read through a plain driver in this
 * process (better-sqlite3, pg). The plans of the SQL behind each route go in the notes.
 */
import { testDialects, type TestDialect } from '../../test/support/databases.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBareFileServer } from '../lib/bare-file-server.js';
import type { Benchmark } from '../lib/benchmark.js';
import { serveDatabase, timedGet } from '../lib/scale-server.js';
import { cpuSeconds } from '../lib/cpu.js';
import { openRaw, type RawDb } from '../lib/raw-db.js';
import { timeComparison, type BenchResult } from '../lib/result.js';
import { routePlans } from '../lib/scale-plans.js';
import { SCALE_ROUTES, type ScaleRoute } from '../lib/scale-routes.js';
import { seedScale, type Seeded } from '../lib/scale-seed.js';
import { SCALE } from '../lib/scale-seed-sql.js';
import { median, percentile, round } from '../lib/stats.js';

const NAME = 'api-scale';
/** Requests of each kind before the measured ones (caches, prepared statements, JIT). */
const WARM_UP = 3;

const say = (line: string): void => void process.stderr.write(`${NAME}: ${line}\n`);

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/** svc's request and the baseline's read, alternately, after a warm-up of each. */
async function sample(
  route: ScaleRoute,
  url: string,
  raw: RawDb,
  seeded: Seeded,
  serverPid: number | undefined,
): Promise<{ svc: number[]; baseline: number[]; bytes: number; serverCpuMs: number }> {
  const path = `${url}${route.path(seeded)}`;
  let bytes = 0;
  for (let i = 0; i < WARM_UP; i++) {
    const { body } = await timedGet(path, seeded.token);
    if (i === 0 && !route.answers(JSON.parse(body)))
      throw new Error(`GET ${path}: unexpected answer ${body.slice(0, 300)}`);
    bytes = Buffer.byteLength(body);
    await route.baseline(raw, seeded);
  }
  const samples = { svc: [] as number[], baseline: [] as number[], bytes };
  const cpuBefore = cpuSeconds(serverPid);
  for (let i = 0; i < route.samples; i++) {
    samples.svc.push((await timedGet(path, seeded.token)).ms);
    samples.baseline.push(await timed(() => route.baseline(raw, seeded)));
  }
  // The server is idle between its answers, so its CPU over the loop is what the answers cost.
  return { ...samples, serverCpuMs: ((cpuSeconds(serverPid) - cpuBefore) * 1000) / route.samples };
}

/**
 * The same stored bytes sent by a bare `node:http` server process to the same client, as many
 * times as svc's route was asked: what HTTP itself costs that answer here (in the notes).
 */
async function bareHttp(route: ScaleRoute, raw: RawDb, seeded: Seeded): Promise<string> {
  const rows = (await route.baseline(raw, seeded)) as { data: Buffer | string }[];
  const bytes = Buffer.concat(rows.map((row) => Buffer.from(row.data)));
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-bare-'));
  const file = join(dir, 'answer.json');
  writeFileSync(file, bytes);
  const server = await startBareFileServer(file);
  try {
    const times: number[] = [];
    for (let i = 0; i < WARM_UP + route.samples; i++) {
      const { ms } = await timedGet(server.url, seeded.token);
      if (i >= WARM_UP) times.push(ms);
    }
    return `a bare node:http server process reading the same ${round(bytes.length / 1024, 0)} KiB from a file and sending them to the same client: p50 ${round(median(times), 1)} ms, p99 ${round(percentile(times, 0.99), 1)} ms`;
  } finally {
    server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function measure(dialect: TestDialect, skipped: string): Promise<BenchResult[]> {
  const database = await dialect.create();
  try {
    say(`${dialect.name}: seeding…`);
    const seeded = await seedScale(database.datasource, (line) => say(`${dialect.name}: ${line}`));
    say(`${dialect.name}: seeded in ${seeded.seconds.toFixed(0)} s; plans…`);
    const plans = await routePlans(database.datasource, seeded, SCALE_ROUTES);
    const { url, server } = await serveDatabase(database.datasource);
    const raw = await openRaw(database.datasource);
    const driver = dialect.name === 'SQLite' ? 'better-sqlite3' : 'pg';
    const results: BenchResult[] = [];
    try {
      for (const route of SCALE_ROUTES) {
        const { svc, baseline, bytes, serverCpuMs } = await sample(route, url, raw, seeded, server.child.pid);
        const bare = route.bareHttp === true ? `; ${await bareHttp(route, raw, seeded)}` : '';
        if (bare !== '') say(`${dialect.name}: ${bare.slice(2)}`);
        say(
          `${dialect.name}: ${route.metric}: p50 ${round(median(svc), 1)} ms, p99 ${round(percentile(svc, 0.99), 1)} ms; baseline p50 ${round(median(baseline), 2)} ms, p99 ${round(percentile(baseline, 0.99), 1)} ms; server CPU ${round(serverCpuMs, 1)} ms per answer`,
        );
        results.push(
          timeComparison(
            {
              name: NAME,
              metric: `${route.metric} (${dialect.name})`,
              notes:
                `${SCALE.repos} repositories, ${SCALE.builds} builds × ${SCALE.stagesPerBuild} stages × ${SCALE.stepsPerStage} steps, seeded in ${seeded.seconds.toFixed(0)} s; ` +
                `${route.samples} sequential requests from this process (fetch, kept-alive connection) to an svc server process, token of a user with a permission on every repository, answers of ${round(bytes / 1024, 0)} KiB; ` +
                `each followed by the baseline, ${route.baselineText}, through ${driver} in this process; svc and baseline are medians; ` +
                `baseline p99 ${round(percentile(baseline, 0.99), 1)} ms; server CPU per answer ${round(serverCpuMs, 1)} ms${bare}; ` +
                `plans (${dialect.name === 'SQLite' ? 'EXPLAIN QUERY PLAN' : 'EXPLAIN'}): ${plans.get(route) ?? 'none'}` +
                (skipped === '' ? '' : `; ${skipped}`),
            },
            svc,
            baseline,
          ),
        );
      }
    } finally {
      await raw.close();
      await server.stop();
    }
    return results;
  } finally {
    await database.drop();
  }
}

/** The API's list, page, build and log reads on a database of 200,000 builds, per database. */
export const apiScale: Benchmark = {
  name: NAME,
  needs: [],
  async run() {
    const dialects = testDialects().filter((d) => d.name !== 'MariaDB');
    const missing = dialects.filter((d) => d.skip).map((d) => d.name);
    for (const name of missing)
      say(`${name} is not available (start it with: source <(.ci/services.sh start)); skipped`);
    const skipped = missing.length === 0 ? '' : `not measured (not available): ${missing.join(', ')}`;
    const results: BenchResult[] = [];
    for (const dialect of dialects.filter((d) => !d.skip)) results.push(...(await measure(dialect, skipped)));
    return results;
  },
};
