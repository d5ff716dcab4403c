/*
 * One failover round on an HaCluster (issue 31): several builds stream numbered lines at once through
 * the balancer while a server is SIGKILLed (or stopped) at a chosen moment; then every build must be
 * green with each line stored once. Also the count of cron builds per scheduled slot, read from the
 * servers' logs. Used by test/faults/ha.test.ts (a few rounds) and `npm run bench -- failover` (many).
 */
import { lineCounts } from './build-probes.js';
import { isOver, type HaCluster, type ServerName } from './ha-cluster.js';
import { workPipeline } from './pipelines.js';

/** How a round disturbs a server. */
export interface Disturbance {
  server: ServerName;
  /** SIGKILL (the machine died) or SIGTERM (an operator stops it). */
  how: 'kill' | 'stop';
  /** Milliseconds after every build's step runs. */
  after: number;
}

export interface RoundResult {
  disturbance: Disturbance;
  builds: { number: number; status: string; lost: number; duplicated: number }[];
  /** How long the disturbance took (a SIGTERM waits for the server's shutdown), milliseconds. */
  down: number;
  /** From the disturbance to the last build's end, milliseconds. */
  recovery: number;
}

/** Each step prints this many lines, one every 30 ms (about 10 s). */
export const LINES = 300;
const COMMAND = `for i in $(seq 1 ${LINES}); do echo "n $i"; sleep 0.03; done`;

/** A second pipeline that only cron builds run, so that they cost the runner little. */
export const CRON_PIPELINE = `---\n${workPipeline(['echo tick'], { name: 'tick', events: ['cron'] })}`;

/**
 * Pushes `count` builds, waits until all run, disturbs a server, then waits for every build's end
 * (on the other server) and counts its lines. The disturbed server is started again at the end.
 */
export async function failoverRound(
  cluster: HaCluster,
  disturbance: Disturbance,
  options: { count: number; label: string },
): Promise<RoundResult> {
  for (const name of ['a', 'b'] as const) await cluster.restart(name);
  const numbers: number[] = [];
  for (let i = 0; i < options.count; i++)
    numbers.push(await cluster.push(COMMAND, `${options.label} ${i}`, CRON_PIPELINE));
  const front = cluster.balancer.port;
  for (const number of numbers) {
    await cluster.build(
      front,
      number,
      (b) => b.stages?.[0]?.steps?.some((s) => s.name === 'work' && s.status === 'running') === true,
      120_000,
    );
  }
  await new Promise((resolve) => setTimeout(resolve, disturbance.after));
  const disturbedAt = Date.now();
  await (disturbance.how === 'kill' ? cluster.kill(disturbance.server) : cluster.stop(disturbance.server));
  const down = Date.now() - disturbedAt;
  const other = cluster.servers[disturbance.server === 'a' ? 'b' : 'a'].port;
  const builds: RoundResult['builds'] = [];
  let recovery = 0;
  for (const number of numbers) {
    const done = await cluster.build(other, number, isOver, 180_000);
    recovery = Math.max(recovery, Date.now() - disturbedAt);
    const lines = await cluster.workLines(other, done);
    builds.push({ number, status: done.status, ...lineCounts(lines, LINES, 'n ') });
  }
  await cluster.restart(disturbance.server);
  return { disturbance, builds, down, recovery };
}

/** What the cron schedulers of both servers did, from their logs. */
export interface CronRecord {
  /** Builds made, by the scheduled time ("slot") they were made for. */
  slots: Map<string, number[]>;
  /** Looks that made no build (the pipeline skipped it), or failed to. */
  skipped: number;
  failed: number;
}

/** Reads both servers' logs for the cron scheduler's lines ("cron: …"). */
export function cronRecord(cluster: HaCluster): CronRecord {
  const record: CronRecord = { slots: new Map(), skipped: 0, failed: 0 };
  for (const line of cluster.logs()) {
    if (!line.includes('"msg":"cron: ')) continue;
    const entry = JSON.parse(line) as { msg: string; slot?: string; build?: number };
    if (entry.msg === 'cron: no build') record.skipped++;
    if (entry.msg === 'cron: cannot create the build') record.failed++;
    if (entry.msg !== 'cron: build created' || entry.slot === undefined || entry.build === undefined)
      continue;
    record.slots.set(entry.slot, [...(record.slots.get(entry.slot) ?? []), entry.build]);
  }
  return record;
}
