import { call } from '../../test/api/client.js';
import type { Benchmark } from '../lib/benchmark.js';
import { cpuSeconds, machineBusy } from '../lib/cpu.js';
import { timeCommand } from '../lib/process.js';
import type { BenchResult } from '../lib/result.js';
import { round } from '../lib/stats.js';
import { buildStatus, startSvcSystem, type SvcSystem } from '../lib/svc-system.js';
import { oneStepPipeline } from '../lib/one-step.js';

/** Builds pushed at once (SVC_BENCH_THROUGHPUT_BUILDS shortens it while working on the benchmark). */
const BUILDS = Number(process.env.SVC_BENCH_THROUGHPUT_BUILDS ?? 200);
const RUNNERS = 2;
const CAPACITY = 4;
const IMAGE = 'local/busybox';
const COMMAND = 'true';
const POLL_MS = 100;
const DEADLINE_MS = 6 * 60_000;
const PIPELINE = oneStepPipeline([COMMAND], 'step', IMAGE);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `count` tasks, at most `parallel` at a time; resolves once all are done (rejects on the first failure). */
async function pool(
  count: number,
  parallel: number,
  task: (index: number) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(parallel, count) }, worker));
}

/** The statuses of the repository's builds, by number (listed 100 a page). */
async function statuses(system: SvcSystem): Promise<Map<number, string>> {
  const found = new Map<number, string>();
  for (let page = 1; page <= Math.ceil(BUILDS / 100); page++) {
    const answer = await call(
      { url: system.url },
      `/api/repos/${system.repo}/builds?page=${page}&per_page=100`,
      { token: system.token },
    );
    if (answer.status !== 200) throw new Error(`listing builds answered ${answer.status}`);
    for (const build of answer.json as { number: number; status: string }[])
      found.set(build.number, build.status);
  }
  return found;
}

/** Waits until build `number` is done (polled every POLL_MS until `deadline`) and returns its status. */
async function outcome(system: SvcSystem, number: number, deadline: number): Promise<string> {
  for (;;) {
    const status = await buildStatus(system, number);
    if (status !== undefined && !['pending', 'running'].includes(status)) return status;
    if (performance.now() > deadline) {
      throw new Error(`build ${number} was still ${status} ${DEADLINE_MS / 1000} s after the pushes`);
    }
    await sleep(POLL_MS);
  }
}

/**
 * Sends BUILDS push webhooks at once, each for a commit of its own, and waits until every build is
 * done (svc takes a delivery repeated byte for byte as a replay, issue 30); returns
 * the time from the first push until the last was seen done (ms). The builds are looked at one at a
 * time, oldest first, as they finish about in that order: listing all of them every poll made the
 * server spend more CPU answering the benchmark than running the builds.
 */
async function svcBurst(system: SvcSystem): Promise<number> {
  const started = performance.now();
  const pushes: Promise<number>[] = [];
  for (let i = 0; i < BUILDS; i++) {
    system.github.commit(system.repo, 'main', { '.drone.yml': PIPELINE }, `throughput ${i}`);
    // The double writes the payload for the branch's head at once, before it sends it.
    pushes.push(system.github.push(system.repo, 'main', system.hookUrl));
  }
  const answers = await Promise.all(pushes);
  const refused = answers.filter((status) => status !== 200);
  if (refused.length > 0)
    throw new Error(`svc refused ${refused.length} of ${BUILDS} webhooks (${refused[0]})`);
  const numbers = [...(await statuses(system)).keys()].sort((a, b) => a - b);
  if (numbers.length !== BUILDS) throw new Error(`${BUILDS} pushes made ${numbers.length} builds`);
  const failed: string[] = [];
  for (const number of numbers) {
    const status = await outcome(system, number, started + DEADLINE_MS);
    if (status !== 'success') failed.push(`#${number} ${status}`);
  }
  const ms = performance.now() - started;
  if (failed.length > 0) {
    throw new Error(`${failed.length} of ${BUILDS} builds did not succeed: ${failed.slice(0, 5).join(', ')}`);
  }
  return ms;
}

/** The same containers with the same parallelism as the runners' slots, `docker run` from a worker pool. */
async function dockerBurst(): Promise<number> {
  const started = performance.now();
  await pool(BUILDS, RUNNERS * CAPACITY, () => timeCommand('docker', ['run', '--rm', IMAGE, COMMAND]));
  return performance.now() - started;
}

/** CPU used over a burst: by the whole machine (share of all its cores busy) and by svc's processes. */
interface BurstCpu {
  machineBusy: number;
  server: number;
  runners: number;
}

/** Runs `burst` and returns its wall time (ms) and the CPU used meanwhile. */
async function withCpu(
  system: SvcSystem,
  burst: () => Promise<number>,
): Promise<{ ms: number; cpu: BurstCpu }> {
  const machine = machineBusy();
  const server = cpuSeconds(system.server.child.pid);
  const runners = runnersCpu(system);
  const ms = await burst();
  return {
    ms,
    cpu: {
      machineBusy: (machineBusy().busy - machine.busy) / ((ms / 1000) * machine.cores),
      server: cpuSeconds(system.server.child.pid) - server,
      runners: runnersCpu(system) - runners,
    },
  };
}

const describeCpu = (cpu: BurstCpu) =>
  `machine ${round(cpu.machineBusy * 100, 0)} % busy, svc server ${round(cpu.server, 1)} s, runners ${round(cpu.runners, 1)} s of CPU`;

/**
 * "200 one-step builds pushed at once through the server and two Docker runners of capacity 4:
 * builds/minute vs 200 `docker run`s with the same parallelism." One burst each, the baseline
 * first (a burst takes minutes here: two of each would not fit the benchmark's time), with the
 * machine's CPU read over both to tell what bounds them.
 */
async function measure(): Promise<BenchResult[]> {
  const system = await startSvcSystem({
    runners: RUNNERS,
    runnerEnv: { SVC_RUNNER_CAPACITY: String(CAPACITY) },
  });
  try {
    // Pulls nothing (`if-not-exists`) but warms Docker's caches the same way for both sides.
    await timeCommand('docker', ['run', '--rm', IMAGE, COMMAND]);
    const baseline = await withCpu(system, dockerBurst);
    process.stderr.write(
      `build-throughput: docker run × ${BUILDS}: ${round(baseline.ms, 0)} ms, ${describeCpu(baseline.cpu)}\n`,
    );
    const svc = await withCpu(system, () => svcBurst(system));
    process.stderr.write(
      `build-throughput: svc × ${BUILDS}: ${round(svc.ms, 0)} ms, ${describeCpu(svc.cpu)}\n`,
    );
    const perMinute = (ms: number) => (BUILDS * 60_000) / ms;
    const [svcRate, baselineRate] = [perMinute(svc.ms), perMinute(baseline.ms)];
    return [
      {
        name: 'build-throughput',
        metric: `${BUILDS} one-step builds pushed at once, ${RUNNERS} runners × capacity ${CAPACITY}: builds per minute`,
        svc: round(svcRate, 1),
        baseline: round(baselineRate, 1),
        ratio: round(baselineRate / svcRate),
        unit: 'builds/min',
        runs: 1,
        p50: round(svcRate, 1),
        p99: round(svcRate, 1),
        notes:
          `ratio = baseline / svc (a throughput: higher is better, so > 1 means svc is slower); ` +
          `svc: ${BUILDS} push webhooks, a commit each, sent at once by the GitHub double to svc server ` +
          `(SQLite), ${RUNNERS} svc runner docker processes with SVC_RUNNER_CAPACITY=${CAPACITY}, clone disabled, ` +
          `step ${IMAGE} \`${COMMAND}\`; first push → all ${BUILDS} builds seen success (oldest first, polled every ${POLL_MS} ms): ` +
          `${round(svc.ms / 1000, 1)} s, ${describeCpu(svc.cpu)}; baseline: ${BUILDS} × docker run --rm ${IMAGE} ` +
          `${COMMAND} from a pool of ${RUNNERS * CAPACITY} workers, run first: ${round(baseline.ms / 1000, 1)} s, ` +
          `${describeCpu(baseline.cpu).replace(/, svc.*/, '')}`,
      },
    ];
  } finally {
    await system.close();
  }
}

/** CPU seconds of all the runner processes together. */
function runnersCpu(system: SvcSystem): number {
  return system.runners.reduce((sum, runner) => sum + cpuSeconds(runner.child.pid), 0);
}

/** Builds per minute of a burst of one-step builds through svc vs `docker run`s with the same parallelism. */
export const buildThroughput: Benchmark = {
  name: 'build-throughput',
  needs: ['docker'],
  run: () => measure(),
};
