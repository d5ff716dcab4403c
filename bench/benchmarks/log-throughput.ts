import { call } from '../../test/api/client.js';
import { dockerClient, type DockerClient } from '../../src/engines/docker/client.js';
import type { Benchmark } from '../lib/benchmark.js';
import { followContainer } from '../lib/docker-follow.js';
import {
  checkLog,
  floodCommand,
  samplesIn,
  steadyCommand,
  wallClock,
  type LogCheck,
} from '../lib/log-flood.js';
import { cpuSeconds } from '../lib/cpu.js';
import { oneStepPipeline } from '../lib/one-step.js';
import { timeCommand } from '../lib/process.js';
import type { BenchResult } from '../lib/result.js';
import { followSse } from '../lib/sse.js';
import { median, percentile, round } from '../lib/stats.js';
import { buildStatus, startSvcSystem, type SvcSystem } from '../lib/svc-system.js';

/** Lines the flood step prints (SVC_BENCH_LOG_LINES shortens it while working on the benchmark). */
const LINES = Number(process.env.SVC_BENCH_LOG_LINES ?? 1_000_000);
/** Measured rounds, after one warm-up round (SVC_BENCH_LOG_RUNS). */
const RUNS = Number(process.env.SVC_BENCH_LOG_RUNS ?? 3);
const IMAGE = 'local/busybox';
const STEP = 'flood';
const POLL_MS = 50;

/** A step's output: the command and how many lines it prints. */
interface Workload {
  command: string;
  lines: number;
}

/** A million lines as fast as the container prints them; 100 of them carry their print time. */
const FLOOD: Workload = { command: floodCommand(LINES, Math.max(1, Math.floor(LINES / 100))), lines: LINES };
/** 5,000 lines at about 1,000 a second (50 every 50 ms), each 50th carrying its print time. */
const STEADY: Workload = { command: steadyCommand(5_000, 50, 50), lines: 5_000 };

interface ApiBuild {
  status: string;
  stages?: { number: number; steps?: { number: number; name: string }[] }[];
}

/** One svc run: queue to success, what the stored log holds, and what a live viewer saw. */
interface SvcRun {
  ms: number;
  /** From the last line's print time to the build's `success` being seen (ms): svc's tail. */
  afterLast: number;
  check: LogCheck;
  /** Print → viewer latencies (ms) of the sampled lines printed after the viewer subscribed. */
  latencies: number[];
  /** Lines the viewer received, whether it got the `end` event, and why it stopped if it did not. */
  viewed: number;
  ended: boolean;
  viewError: string | undefined;
  /** CPU seconds the server and the runner process spent during the run. */
  cpu: { server: number; runner: number };
}

/** One run of the bare Docker follower. */
interface FollowRun {
  ms: number;
  latencies: number[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function getBuild(system: SvcSystem, number: number): Promise<ApiBuild | undefined> {
  const answer = await call({ url: system.url }, `/api/repos/${system.repo}/builds/${number}`, {
    token: system.token,
  });
  return answer.status === 200 ? (answer.json as ApiBuild) : undefined;
}

/** Waits for `check` to give a value, polling every POLL_MS; fails after `ms`. */
async function until<T>(what: string, check: () => Promise<T | undefined>, ms = 300_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(POLL_MS);
  }
}

/**
 * Pushes the pipeline (webhook → build queued → runner), follows the step's live log over SSE
 * from the moment the step exists, and times until the build is `success`; then reads the stored log.
 */
async function svcRun(system: SvcSystem, number: number, work: Workload): Promise<SvcRun> {
  const { github, repo } = system;
  github.commit(
    repo,
    'main',
    { '.drone.yml': oneStepPipeline([work.command], STEP, IMAGE) },
    `log ${number}`,
  );
  const cpuBefore = {
    server: cpuSeconds(system.server.child.pid),
    runner: cpuSeconds(system.runner.child.pid),
  };
  const started = performance.now();
  const answered = await github.push(repo, 'main', system.hookUrl);
  if (answered !== 200) throw new Error(`the webhook answered ${answered}`);

  const printed = new Map<number, number>();
  const arrived = new Map<number, number>();
  const viewer = (async () => {
    const where = await until('the step to exist', async () => {
      const build = await getBuild(system, number);
      const stage = build?.stages?.[0];
      const step = stage?.steps?.find((s) => s.name === STEP);
      return stage && step ? { stage: stage.number, step: step.number } : undefined;
    });
    const sse = followSse(
      `${system.url}/api/repos/${repo}/builds/${number}/logs/${where.stage}/${where.step}/stream`,
      system.token,
      ' t=',
      (text, at) => {
        for (const sample of samplesIn(text)) {
          printed.set(sample.line, sample.printed);
          if (!arrived.has(sample.line)) arrived.set(sample.line, at);
        }
      },
      wallClock,
    );
    const opened = await sse.opened;
    const seen = await sse.done;
    return { opened, ...seen };
  })();
  // Awaited below once the build is over; a failure before that must not go unhandled.
  viewer.catch(() => undefined);

  const status = await until(`build ${number} to finish`, async () => {
    const current = await buildStatus(system, number);
    return current === undefined || current === 'pending' || current === 'running' ? undefined : current;
  });
  const ms = performance.now() - started;
  const doneAt = wallClock();
  const cpu = {
    server: cpuSeconds(system.server.child.pid) - cpuBefore.server,
    runner: cpuSeconds(system.runner.child.pid) - cpuBefore.runner,
  };
  const build = await getBuild(system, number);
  const stage = build?.stages?.[0];
  const step = stage?.steps?.find((s) => s.name === STEP);
  const log = await call(
    { url: system.url },
    `/api/repos/${repo}/builds/${number}/logs/${stage?.number}/${step?.number}`,
    { token: system.token },
  );
  if (status !== 'success') {
    throw new Error(`build ${number} ended ${status}; the step's log: ${log.text.slice(0, 2000)}`);
  }
  const seen = await Promise.race([
    viewer,
    sleep(120_000).then(() => {
      throw new Error('the live viewer did not get the end of the log within 2 minutes of the build');
    }),
  ]);
  const lines = log.status === 200 ? (log.json as { pos: number; out: string }[]) : [];
  const latencies: number[] = [];
  for (const [line, at] of arrived) {
    const time = printed.get(line) ?? at;
    if (time >= seen.opened) latencies.push(at - time);
  }
  const last = printed.get(work.lines);
  return {
    ms,
    afterLast: last === undefined ? Number.NaN : doneAt - last,
    check: checkLog(lines, work.lines),
    latencies,
    viewed: seen.events,
    ended: seen.ended,
    viewError: seen.error,
    cpu,
  };
}

/** The same container, read through Docker's attach API by a bare client. */
async function followRun(docker: DockerClient, work: Workload): Promise<FollowRun> {
  const latencies: number[] = [];
  const run = await followContainer(
    docker,
    IMAGE,
    work.command,
    (text, at) => {
      for (const sample of samplesIn(text)) latencies.push(at - sample.printed);
    },
    wallClock,
  );
  if (run.lines !== work.lines) throw new Error(`the bare Docker follower read ${run.lines} lines`);
  return { ms: run.ms, latencies };
}

function describeRun(kind: string, run: SvcRun): string {
  return (
    `log-throughput: ${kind}: svc ${round(run.ms, 0)} ms (success ${round(run.afterLast, 0)} ms after the ` +
    `last line was printed), lost ${run.check.lost}, duplicates ${run.check.duplicates}, wrong ${run.check.wrong}, ` +
    `viewer ${run.viewed} lines (end ${run.ended}${run.viewError ? `, ${run.viewError}` : ''}), tail p50 ` +
    `${round(percentile(run.latencies, 0.5), 1)} p99 ${round(percentile(run.latencies, 0.99), 1)} ms ` +
    `(${run.latencies.length} samples), cpu server ${round(run.cpu.server, 2)} s runner ${round(run.cpu.runner, 2)} s\n`
  );
}

/**
 * "A step printing 1,000,000 lines (~100 MB): time to `success` with every line stored, vs the same
 * container with its output sent to /dev/null; live-tail latency p99; lines lost (must be 0)."
 * svc runs as users run it: `svc server` and `svc runner docker` processes (the built command), the
 * build queued by a push webhook from the GitHub double. Each round runs, interleaved: svc, the
 * baseline (`docker run --rm` with the output to /dev/null), the same container read through
 * Docker's attach API by a bare client (Docker's own output path: the share of the time that is Docker's,
 * and the baseline of the tail latency); then svc and the bare follower on a step printing at a
 * steady 1,000 lines a second (the tail latency of a step that does not flood).
 */
async function measure(): Promise<BenchResult[]> {
  // The svc processes run the built command (bench/run.ts built it), as users run it.
  process.env.SVC_RUN_BUILT = 'true';
  const docker = dockerClient({ host: process.env.DOCKER_HOST });
  const system = await startSvcSystem();
  let number = 0;
  const svc: SvcRun[] = [];
  const baseline: number[] = [];
  const follow: FollowRun[] = [];
  const steady: SvcRun[] = [];
  const steadyFollow: FollowRun[] = [];
  const measureRound = async (keep: boolean) => {
    const flood = await svcRun(system, ++number, FLOOD);
    process.stderr.write(describeRun('flood', flood));
    const devNull = await timeCommand('docker', [
      'run',
      '--rm',
      IMAGE,
      'sh',
      '-c',
      `(${FLOOD.command}) >/dev/null`,
    ]);
    const followed = await followRun(docker, FLOOD);
    process.stderr.write(
      `log-throughput: flood: /dev/null ${round(devNull, 0)} ms, bare follower ${round(followed.ms, 0)} ms\n`,
    );
    const paced = await svcRun(system, ++number, STEADY);
    process.stderr.write(describeRun('steady', paced));
    const pacedFollow = await followRun(docker, STEADY);
    if (!keep) return;
    svc.push(flood);
    baseline.push(devNull);
    follow.push(followed);
    steady.push(paced);
    steadyFollow.push(pacedFollow);
  };
  try {
    // One warm-up round, then measured rounds: every side sees the same noise.
    await measureRound(false);
    for (let i = 0; i < RUNS; i++) await measureRound(true);
  } finally {
    await system.close();
  }

  const svcMs = svc.map((r) => r.ms);
  const svcMedian = median(svcMs);
  const baselineMedian = median(baseline);
  const followMedian = median(follow.map((r) => r.ms));
  const tail = svc.flatMap((r) => r.latencies);
  const followTail = follow.flatMap((r) => r.latencies);
  const steadyTail = steady.flatMap((r) => r.latencies);
  const steadyFollowTail = steadyFollow.flatMap((r) => r.latencies);
  const lost = svc.map((r) => r.check.lost);
  const steadyLost = steady.map((r) => r.check.lost);
  const cpu =
    `svc CPU per run (median): server ${round(median(svc.map((r) => r.cpu.server)), 2)} s, ` +
    `runner ${round(median(svc.map((r) => r.cpu.runner)), 2)} s; success came a median ` +
    `${round(median(svc.map((r) => r.afterLast)), 0)} ms after the container printed its last line`;
  const what = `${LINES.toLocaleString('en')} lines of 100 bytes`;
  const common = { name: 'log-throughput', runs: RUNS };
  const p99 = (samples: number[]) => round(percentile(samples, 0.99), 1);
  return [
    {
      ...common,
      metric: `${what}: queue to success with every line stored`,
      svc: round(svcMedian, 1),
      baseline: round(baselineMedian, 1),
      ratio: round(svcMedian / baselineMedian),
      unit: 'ms',
      p50: round(svcMedian, 1),
      p99: p99(svcMs),
      notes: `svc server + svc runner docker (built, child processes), build queued by a push webhook, one step (clone disabled), a live viewer on its log; vs docker run --rm ${IMAGE} with the same command >/dev/null; interleaved, medians; ${cpu}`,
    },
    {
      ...common,
      metric: `${what}: queue to success vs Docker's own output path`,
      svc: round(svcMedian, 1),
      baseline: round(followMedian, 1),
      ratio: round(svcMedian / followMedian),
      unit: 'ms',
      p50: round(svcMedian, 1),
      p99: p99(svcMs),
      notes: `baseline: the same container (default json-file log driver) created, attached to (POST /containers/{id}/attach, before start) and started by a bare client counting lines — what svc's Docker engine does, without svc: the part of svc's time that is Docker's`,
    },
    {
      ...common,
      metric: `${what}: live-tail latency p99, print in the container → SSE viewer`,
      svc: p99(tail),
      baseline: p99(followTail),
      ratio: round(percentile(tail, 0.99) / percentile(followTail, 0.99)),
      unit: 'ms',
      p50: round(percentile(tail, 0.5), 1),
      p99: p99(tail),
      notes: `every ${Math.floor(LINES / 100).toLocaleString('en')}th line carries its print time (busybox adjtimex: µs wall clock; the container shares the host's clock) and is timed on arrival at a viewer of /api/repos/…/logs/{stage}/{step}/stream subscribed as soon as the step exists (samples printed before it subscribed are left out); ${tail.length} samples over ${RUNS} runs; baseline: the same samples at the bare Docker attach reader (Docker's own latency, p50 ${round(percentile(followTail, 0.5), 1)} ms)`,
    },
    {
      ...common,
      metric: `${STEADY.lines.toLocaleString('en')} lines at 1,000 lines/s: live-tail latency p99, print in the container → SSE viewer`,
      svc: p99(steadyTail),
      baseline: p99(steadyFollowTail),
      ratio: round(percentile(steadyTail, 0.99) / percentile(steadyFollowTail, 0.99)),
      unit: 'ms',
      p50: round(percentile(steadyTail, 0.5), 1),
      p99: p99(steadyTail),
      notes: `a step printing 50 lines every 50 ms, the last of each 50 carrying its print time; ${steadyTail.length} samples over ${RUNS} runs; baseline: the bare Docker attach reader (p50 ${round(percentile(steadyFollowTail, 0.5), 1)} ms); svc queue to success ${round(median(steady.map((r) => r.ms)), 0)} ms (median)`,
    },
    {
      ...common,
      metric: `${what}: lines lost`,
      svc: Math.max(...lost),
      baseline: 0,
      ratio: null,
      unit: 'lines',
      p50: median(lost),
      p99: percentile(lost, 0.99),
      notes: `worst run (the steady step lost ${steadyLost.join('/')}); expected − distinct lines found in the stored log (GET …/logs/{stage}/{step}), each checked for its number and content; duplicates per run ${svc.map((r) => r.check.duplicates).join('/')}, wrong or out-of-order lines ${svc.map((r) => r.check.wrong).join('/')}; the live viewer got ${svc.map((r) => r.viewed).join('/')} lines${svc.every((r) => r.ended) ? ' and the end event' : ', NOT always the end event'}`,
    },
  ];
}

/** A step printing a million lines through svc: throughput, live-tail latency, lines lost. */
export const logThroughput: Benchmark = {
  name: 'log-throughput',
  needs: ['docker'],
  run: () => measure(),
};
