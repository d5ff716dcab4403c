import type { BenchResult } from './lib/result.js';

/** A target of the issue, as a check of one result. */
export interface Target {
  readonly text: string;
  met(result: BenchResult): boolean;
}

const ratioAtMost = (limit: number): Target => ({
  text: `≤ ${limit}× baseline`,
  met: (r) => r.ratio !== null && r.ratio <= limit,
});
const valueAtMost = (limit: number, unit: string): Target => ({
  text: `≤ ${limit} ${unit}`,
  met: (r) => r.svc <= limit,
});
const p99AtMost = (limit: number): Target => ({ text: `p99 ≤ ${limit} ms`, met: (r) => r.p99 <= limit });

/** The targets of the benchmarks issue, by benchmark and metric (first match wins). */
const TARGETS: readonly { name: string; metric: RegExp; target: Target }[] = [
  { name: 'pipeline-overhead', metric: /./, target: ratioAtMost(1.2) },
  { name: 'build-latency', metric: /./, target: ratioAtMost(1.5) },
  // Issue 16: stages/s drift with the machine's load, so the target is the ratio to one-statement
  // claims on the same database in the same run.
  { name: 'dispatch', metric: /stages per second/i, target: ratioAtMost(4) },
  { name: 'dispatch', metric: /latency/i, target: p99AtMost(10) },
  { name: 'log-throughput', metric: /lost/i, target: valueAtMost(0, 'lines') },
  { name: 'log-throughput', metric: /tail|latency/i, target: p99AtMost(200) },
  { name: 'log-throughput', metric: /Docker's own output path/i, target: ratioAtMost(1.1) },
  { name: 'viewers', metric: /tail/i, target: p99AtMost(500) },
  // Issue 16: the process's own (anonymous) memory; file-backed pages of the Node binary are shared.
  { name: 'memory', metric: /idle server.*anonymous/i, target: valueAtMost(40, 'MiB') },
  { name: 'memory', metric: /idle runner.*anonymous/i, target: valueAtMost(20, 'MiB') },
  { name: 'memory', metric: /added/i, target: valueAtMost(50, 'MiB') },
  { name: 'startup', metric: /svc server/i, target: valueAtMost(300, 'ms') },
  // Issue 33: from npm ci done to a green build, with no account anywhere, within 2 minutes.
  { name: 'first-build', metric: /./, target: valueAtMost(120, 's') },
  { name: 'web', metric: /first load/i, target: valueAtMost(150, 'KiB') },
  { name: 'web', metric: /live log line/i, target: valueAtMost(200, 'ms') },
  { name: 'ssh-overhead', metric: /./, target: ratioAtMost(1.3) },
  { name: 'kube-overhead', metric: /./, target: ratioAtMost(1.5) },
  // Issue 31: over every kill, nothing lost, nothing repeated, one cron build per slot.
  { name: 'failover', metric: /lines|not green/i, target: valueAtMost(0, 'lines or builds') },
  { name: 'failover', metric: /cron/i, target: valueAtMost(1, 'build') },
  { name: 'api-scale', metric: /log/i, target: ratioAtMost(2) },
  { name: 'api-scale', metric: /./, target: p99AtMost(25) },
  { name: 'insights', metric: /./, target: p99AtMost(100) },
  // Issue 31: "flat" handles and descriptors allow a keep-alive connection or two still closing.
  { name: 'soak', metric: /heap.*per 1000 builds/i, target: valueAtMost(1, 'MiB') },
  { name: 'soak', metric: /RSS above/i, target: valueAtMost(50, 'MiB') },
  { name: 'soak', metric: /growth once warm/i, target: valueAtMost(2, 'more') },
  // Issue 34: the warm build's step ≥ 5× faster than the cold one's.
  { name: 'cache-speedup', metric: /./, target: ratioAtMost(0.2) },
  // Issue 34: svc ≥ 0.8× the bare pipeline's MB/s; the ratio is baseline / svc, so ≤ 1.25.
  {
    name: 'cache-throughput',
    metric: /^(save|restore),/,
    target: { text: '≤ 1.25× baseline (≥ 0.8× its MB/s)', met: (r) => r.ratio !== null && r.ratio <= 1.25 },
  },
  { name: 'cache-memory', metric: /RSS growth/, target: valueAtMost(20, 'MiB') },
];

/** The target a result is held to, if the issue sets one. */
export function targetOf(result: BenchResult): Target | undefined {
  return TARGETS.find((t) => t.name === result.name && t.metric.test(result.metric))?.target;
}
