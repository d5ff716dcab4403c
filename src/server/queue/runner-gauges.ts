import type { Runner } from '../../core/runner.js';
import type { Stage } from '../../core/stage.js';
import { gauge } from '../../platform/metrics/exposition.js';
import { RUNNER_RECENT_MS } from './pending-reason.js';

/** The pipeline type a stage runs on, as the insight rollups name runner kinds. */
const kindOf = (type: string): string => type || 'docker';

/**
 * Runner capacity against the stages running, by runner kind (pipeline type), as gauges: what
 * Prometheus turns into utilisation over time (docs/insights.md), which the rollups cannot, since
 * the server keeps only each runner's last poll. Present runners are those that polled in the last
 * five minutes, as the queue counts them; Drone's runners say no name and register no capacity.
 */
export function runnerGauges(runners: readonly Runner[], running: readonly Stage[], now: number): string {
  const present = runners.filter((runner) => runner.lastSeen >= now - RUNNER_RECENT_MS);
  const kinds = new Map<string, { runners: number; capacity: number; running: number }>();
  const of = (kind: string) => {
    let found = kinds.get(kind);
    if (found === undefined) kinds.set(kind, (found = { runners: 0, capacity: 0, running: 0 }));
    return found;
  };
  for (const runner of present) {
    const sums = of(kindOf(runner.type));
    sums.runners++;
    sums.capacity += runner.capacity;
  }
  for (const stage of running) of(kindOf(stage.type)).running++;
  const sorted = [...kinds.entries()].sort(([a], [b]) => a.localeCompare(b));
  const samples = (pick: (sums: { runners: number; capacity: number; running: number }) => number) =>
    sorted.map(([kind, sums]) => ({ labels: { kind }, value: pick(sums) }));
  return [
    gauge(
      'svc_runners_present',
      'Runners that polled in the last 5 minutes, by kind.',
      samples((s) => s.runners),
    ),
    gauge(
      'svc_runner_capacity',
      'Stages the present runners run at once (SVC_RUNNER_CAPACITY summed), by kind.',
      samples((s) => s.capacity),
    ),
    gauge(
      'svc_runner_running_stages',
      'Stages running now, by runner kind.',
      samples((s) => s.running),
    ),
  ].join('');
}
