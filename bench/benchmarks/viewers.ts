import { call } from '../../test/api/client.js';
import type { Benchmark } from '../lib/benchmark.js';
import { cpuSeconds, machineBusy } from '../lib/cpu.js';
import { wallClock } from '../lib/log-flood.js';
import { pacedCommand } from '../lib/paced-flood.js';
import type { BenchResult } from '../lib/result.js';
import { median, percentile, round } from '../lib/stats.js';
import { buildStatus, startSvcSystem, type SvcSystem } from '../lib/svc-system.js';
import { ViewerCrowd, type CrowdSeen } from '../lib/viewer-crowd.js';
import { oneStepPipeline } from '../lib/one-step.js';

/** Viewers of the flooding step (SVC_BENCH_VIEWERS), and the processes they are spread over. */
const VIEWERS = Number(process.env.SVC_BENCH_VIEWERS ?? 500);
const PROCESSES = 4;
/** Rounds of (one viewer, VIEWERS viewers) (SVC_BENCH_VIEWERS_ROUNDS). */
const ROUNDS = Number(process.env.SVC_BENCH_VIEWERS_ROUNDS ?? 3);
/** 10,000 lines a second for 15 s, in bursts of BURST lines, the last of each timed. */
const RATE = 10_000;
const LINES = 150_000;
const BURST = 500;
/** The step waits this long before it prints, so that every viewer is subscribed by then. */
const QUIET_S = 10;
const STEP = 'flood';
const CPU_EVERY_MS = 200;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `promise`'s value, or a failure saying `what` did not happen within `ms` (the timer then goes). */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} within ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

const PIPELINE = oneStepPipeline([`sleep ${QUIET_S}`, pacedCommand(LINES, RATE, BURST)], STEP);

/** One flood watched by a crowd of viewers. */
interface Run {
  viewers: number;
  /** Print → viewer (ms) of the sampled lines. */
  latencies: number[];
  /** Seconds from the first to the last timed line, and the lines a second printed meanwhile. */
  floodS: number;
  rate: number;
  /**
   * CPU ms per second of flood: the server's and the runner's from its first line until the last
   * viewer had the `end` event, the viewers' processes' from their subscribing on.
   */
  cpu: { server: number; runner: number; viewers: number };
  /** From the last print to the last viewer's `end` event (ms). */
  lastViewerMs: number;
  /** Share of the machine's CPU (all cores) busy over the same time as `cpu`, whoever used it. */
  machineBusy: number;
}

/** CPU seconds of the server, the runner and the whole machine, read every CPU_EVERY_MS until stopped. */
function cpuRecorder(system: SvcSystem) {
  const readings: { at: number; server: number; runner: number; machine: number }[] = [];
  const { cores } = machineBusy();
  const read = () => {
    const [server, runner] = [system.server.child.pid, system.runner.child.pid].map(cpuSeconds);
    readings.push({ at: wallClock(), server: server ?? 0, runner: runner ?? 0, machine: machineBusy().busy });
  };
  read();
  const timer = setInterval(read, CPU_EVERY_MS);
  return {
    /**
     * CPU seconds of the server and the runner between the last reading before `from` and the
     * first after `to`, and the share of the machine's cores busy meanwhile.
     */
    between(from: number, to: number) {
      read();
      const start = readings.findLast((r) => r.at <= from) ?? readings[0];
      const end = readings.find((r) => r.at >= to) ?? readings.at(-1);
      if (start === undefined || end === undefined) throw new Error('no CPU readings');
      const seconds = (end.at - start.at) / 1000;
      return {
        server: end.server - start.server,
        runner: end.runner - start.runner,
        machineBusy: (end.machine - start.machine) / (seconds * cores),
      };
    },
    stop: () => clearInterval(timer),
  };
}

/** The path of the flooding step's log once the build has it (its stages exist as soon as it is created). */
async function logPath(system: SvcSystem, number: number): Promise<string> {
  for (let tries = 0; tries < 600; tries++) {
    const answer = await call({ url: system.url }, `/api/repos/${system.repo}/builds/${number}`, {
      token: system.token,
    });
    const stage = (
      answer.json as { stages?: { number: number; steps?: { number: number; name: string }[] }[] } | undefined
    )?.stages?.[0];
    const step = stage?.steps?.find((s) => s.name === STEP);
    if (answer.status === 200 && stage && step)
      return `/api/repos/${system.repo}/builds/${number}/logs/${stage.number}/${step.number}`;
    await sleep(50);
  }
  throw new Error(`build ${number} has no step ${STEP} after 30 s`);
}

/** The stored log's last position: every viewer must have had every line up to it. */
async function lastStoredPos(system: SvcSystem, path: string): Promise<number> {
  const answer = await call({ url: system.url }, path, { token: system.token });
  const lines = answer.status === 200 ? (answer.json as { pos: number }[]) : [];
  return lines.at(-1)?.pos ?? -1;
}

/** Keepalive comments (`: keepalive`, every 25 s) may make one viewer's bytes differ from another's. */
const KEEPALIVE_SLACK = 100;

/**
 * Checks that every viewer got the whole log and its end: its last line, every timed line, and as
 * many bytes as the others (each viewer is sent the same bytes); throws saying who did not.
 */
function checkViewers(seen: CrowdSeen, lastPos: number): void {
  const fewest = Math.min(...seen.viewers.map((v) => v.bytes));
  const short = seen.viewers.filter(
    (v) =>
      !v.ended ||
      v.error !== undefined ||
      v.lastPos !== lastPos ||
      v.samples !== LINES / BURST ||
      v.bytes > fewest + KEEPALIVE_SLACK,
  );
  if (short.length > 0) {
    throw new Error(
      `${short.length} of ${seen.viewers.length} viewers did not get the whole log (last pos ${lastPos}, ` +
        `${LINES / BURST} timed lines, ${fewest} bytes at the least); first: ${JSON.stringify(short[0])}`,
    );
  }
}

/** Pushes the flooding step, opens `viewers` viewers on its log, and measures until all saw its end. */
async function floodRun(system: SvcSystem, number: number, viewers: number): Promise<Run> {
  system.github.commit(system.repo, 'main', { '.drone.yml': PIPELINE }, `viewers ${number}`);
  const answered = await system.github.push(system.repo, 'main', system.hookUrl);
  if (answered !== 200) throw new Error(`the webhook answered ${answered}`);
  const path = await logPath(system, number);
  const port = Number(new URL(system.url).port);
  const processes = Math.min(PROCESSES, viewers);
  const crowd = new ViewerCrowd(port, `${path}/stream`, system.token, { viewers, processes });
  const cpu = cpuRecorder(system);
  try {
    const openedAt = await within(crowd.opened, 60_000, `${viewers} viewers were not all subscribed`);
    const seen = await within(crowd.done, 180_000, `${viewers} viewers did not all get the end`);
    const doneAt = wallClock();
    for (let tries = 0; (await buildStatus(system, number)) !== 'success'; tries++) {
      if (tries > 300) throw new Error(`build ${number} did not succeed within 30 s of its log's end`);
      await sleep(100);
    }
    checkViewers(seen, await lastStoredPos(system, path));
    const { first, last } = seen;
    if (first === undefined || last === undefined || openedAt > first[1]) {
      throw new Error(`the flood began before all viewers were subscribed (raise QUIET_S)`);
    }
    const floodS = (last[1] - first[1]) / 1000;
    const used = cpu.between(first[1], doneAt);
    const perSecond = (seconds: number) => (seconds * 1000) / floodS;
    return {
      viewers,
      latencies: seen.latencies,
      floodS,
      rate: (last[0] - first[0]) / floodS,
      cpu: { server: perSecond(used.server), runner: perSecond(used.runner), viewers: seen.cpu / floodS },
      lastViewerMs: doneAt - last[1],
      machineBusy: used.machineBusy,
    };
  } finally {
    cpu.stop();
    crowd.close();
    crowd.kill();
  }
}

function describe(run: Run): string {
  const p = (q: number) => round(percentile(run.latencies, q), 1);
  return (
    `viewers: ${run.viewers} viewer(s): ${round(run.rate, 0)} lines/s for ${round(run.floodS, 1)} s, tail p50 ${p(0.5)} ` +
    `p99 ${p(0.99)} max ${p(1)} ms (${run.latencies.length} samples), last viewer done ${round(run.lastViewerMs, 0)} ms ` +
    `after the last print; CPU ms per s of flood: server ${round(run.cpu.server, 0)}, runner ${round(run.cpu.runner, 0)}, ` +
    `viewers ${round(run.cpu.viewers, 0)}; machine ${round(run.machineBusy * 100, 0)} % busy\n`
  );
}

/**
 * "500 concurrent SSE viewers on a step printing 10,000 lines/s: tail p99 ≤ 500 ms and the server's
 * CPU per viewer." Rounds of a flood with one viewer (the baseline) and with 500, interleaved.
 */
async function measure(): Promise<BenchResult[]> {
  const system = await startSvcSystem();
  const single: Run[] = [];
  const crowd: Run[] = [];
  let number = 0;
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const [viewers, runs] of [
        [1, single],
        [VIEWERS, crowd],
      ] as const) {
        const run = await floodRun(system, ++number, viewers);
        process.stderr.write(describe(run));
        runs.push(run);
      }
    }
  } finally {
    await system.close();
  }
  const tail = crowd.flatMap((r) => r.latencies);
  const tailOne = single.flatMap((r) => r.latencies);
  const serverOne = median(single.map((r) => r.cpu.server));
  const serverMany = median(crowd.map((r) => r.cpu.server));
  const perViewer = (serverMany - serverOne) / (VIEWERS - 1);
  const { cores } = machineBusy();
  const what = `${VIEWERS} SSE viewers at ${RATE.toLocaleString('en')} lines/s`;
  const flood = `a step printing ${LINES.toLocaleString('en')} lines of 100 bytes at ${RATE.toLocaleString('en')} a second, in bursts of ${BURST} (measured ${crowd.map((r) => round(r.rate, 0)).join('/')} lines/s over ${crowd.map((r) => round(r.floodS, 1)).join('/')} s), the last of each ${BURST} carrying its print time (busybox adjtimex: the host's clock)`;
  const viewersCpu = `the viewers' ${PROCESSES} processes used ${crowd.map((r) => round(r.cpu.viewers, 0)).join('/')} CPU ms per s of flood, the machine's ${cores} cores were ${crowd.map((r) => round(r.machineBusy * 100, 0)).join('/')} % busy (one viewer: ${single.map((r) => round(r.machineBusy * 100, 0)).join('/')} %)`;
  const common = { name: 'viewers', runs: ROUNDS };
  return [
    {
      ...common,
      metric: `${what}: tail latency p99, print in the container → SSE viewer`,
      svc: round(percentile(tail, 0.99), 1),
      baseline: round(percentile(tailOne, 0.99), 1),
      ratio: round(percentile(tail, 0.99) / percentile(tailOne, 0.99)),
      unit: 'ms',
      p50: round(percentile(tail, 0.5), 1),
      p99: round(percentile(tail, 0.99), 1),
      notes: `svc server + svc runner docker (built); ${flood}; ${VIEWERS} viewers of …/logs/{stage}/{step}/stream subscribed before the step prints, in ${PROCESSES} child processes, each reading its stream on a bare socket into one shared buffer (no HTTP parser: a Node HTTP client per viewer made the viewers use most of this small machine's CPU) and timing every timed line with a native search (${tail.length} samples over ${ROUNDS} runs); every viewer got the end event, the stored log's last line, every timed line and the same bytes; ${viewersCpu}; baseline: the same flood with one viewer, interleaved (p50 ${round(percentile(tailOne, 0.5), 1)} ms); the last viewer had the end ${crowd.map((r) => round(r.lastViewerMs / 1000, 1)).join('/')} s after the last print (one viewer: ${single.map((r) => round(r.lastViewerMs / 1000, 1)).join('/')} s)`,
    },
    {
      ...common,
      metric: `${what}: server CPU per viewer`,
      svc: round(perViewer, 2),
      baseline: round(serverOne, 1),
      ratio: round(perViewer / serverOne),
      unit: 'CPU ms/s',
      p50: round(perViewer, 2),
      p99: round(perViewer, 2),
      notes: `svc: (server CPU with ${VIEWERS} viewers − with 1) / ${VIEWERS - 1}, in CPU milliseconds per second of flood (utime + stime from /proc, from the first timed line until the last viewer had the end event, over the flood's duration; medians of ${ROUNDS} runs); baseline: the server's CPU with one viewer, same unit (it stores and fans out the lines); with ${VIEWERS}: ${crowd.map((r) => round(r.cpu.server, 0)).join('/')} ms/s, with 1: ${single.map((r) => round(r.cpu.server, 0)).join('/')} ms/s; runner ${round(median(crowd.map((r) => r.cpu.runner)), 0)} ms/s`,
    },
  ];
}

/** Hundreds of live viewers of a flooding step's log: their tail latency and what each costs the server. */
export const viewers: Benchmark = {
  name: 'viewers',
  needs: ['docker'],
  run: () => measure(),
};
