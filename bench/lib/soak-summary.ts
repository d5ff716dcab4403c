import type { BenchResult } from './result.js';
import type { RunnerReading, SoakReading } from './soak-gauges.js';
import { round } from './stats.js';

/** One round of the soak as measured after it: builds so far and the gauges. */
export interface SoakRow {
  readonly round: number;
  /** Builds made since the start, all rounds together. */
  readonly builds: number;
  readonly seconds: number;
  readonly reading: SoakReading;
}

/** The slope of the least-squares line through the points (y per unit of x); 0 with fewer than two. */
export function slope(points: readonly (readonly [number, number])[]): number {
  if (points.length < 2) return 0;
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  const sxy = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  return sxx === 0 ? 0 : sxy / sxx;
}

/** The holders whose size grew the most from the first warm round to the last. */
export function growingHolders(rows: readonly SoakRow[], count = 3): string {
  const [first, last] = [rows[Math.min(1, rows.length - 1)], rows.at(-1)];
  if (first === undefined || last === undefined) return 'none';
  const grown = Object.entries(last.reading.server.held)
    .map(([name, size]) => ({ name, size, grew: size - (first.reading.server.held[name] ?? 0) }))
    .sort((a, b) => b.grew - a.grew || b.size - a.size)
    .slice(0, count);
  return grown.map((h) => `${h.name} ${h.size} (${h.grew >= 0 ? '+' : ''}${h.grew})`).join(', ');
}

function figure(
  name: string,
  metric: string,
  value: number,
  unit: string,
  notes: string,
  runs: number,
): BenchResult {
  const v = round(value, 2);
  return { name, metric, svc: v, baseline: null, ratio: null, unit, runs, p50: v, p99: v, notes };
}

/** A runner gauge per round, runners separated by `/`: `12/13, 12/14`. */
function perRunner(rows: readonly SoakRow[], of: (runner: RunnerReading) => number): string {
  return rows.map((r) => r.reading.runners.map(of).join('/')).join(', ');
}

/**
 * The soak's figures against the targets: the heap after a full collection grows by less
 * than 1 MiB per thousand builds once warm (the first round is the warm-up; the slope of the later
 * rounds), handles and descriptors flat after the warm-up, RSS within 50 MiB of its first round —
 * for the server and for the runners, read the same way.
 */
export function soakFigures(database: string, rows: readonly SoakRow[], notes: string): BenchResult[] {
  const warm = rows.slice(1);
  const [first, settled, last] = [rows[0], warm[0], rows.at(-1)];
  if (first === undefined || settled === undefined || last === undefined)
    throw new Error('the soak needs at least two rounds');
  const server = (row: SoakRow) => row.reading.server;
  const heapPer1000 = slope(warm.map((r) => [r.builds, server(r).heapAfterGcMiB])) * 1000;
  const rssAbove = Math.max(...rows.map((r) => server(r).rssMiB)) - server(first).rssMiB;
  const runnerRssAbove = Math.max(
    ...rows.flatMap((r) =>
      r.reading.runners.map((runner, i) => runner.rssMiB - (first.reading.runners[i]?.rssMiB ?? 0)),
    ),
  );
  const runnerHeapPer1000 = Math.max(
    ...first.reading.runners.map(
      (_, i) => slope(warm.map((r) => [r.builds, r.reading.runners[i]?.heapAfterGcMiB ?? 0])) * 1000,
    ),
  );
  const runnerFds = (row: SoakRow) => row.reading.runners.reduce((sum, runner) => sum + runner.fds, 0);
  const what = `soak on ${database}, ${last.builds} builds in ${rows.length} rounds, ${round(last.seconds / 60, 1)} min`;
  const name = 'soak';
  const n = rows.length;
  return [
    figure(
      name,
      `${database}: server heap after full GC, growth per 1000 builds once warm`,
      heapPer1000,
      'MiB',
      `${what}; least-squares slope of the heap after GET /metrics?gc=full over rounds 2–${n} (${round(server(settled).heapAfterGcMiB, 1)} → ${round(server(last).heapAfterGcMiB, 1)} MiB); ${notes}`,
      n,
    ),
    figure(
      name,
      `${database}: server RSS above its first round, largest`,
      rssAbove,
      'MiB',
      `${what}; RSS after GET /metrics?gc=full per round ${rows.map((r) => round(server(r).rssMiB, 0)).join(', ')} MiB; ` +
        `as found before it ${rows.map((r) => round(server(r).rssFoundMiB, 0)).join(', ')}; its own (RssAnon) ` +
        `${rows.map((r) => round(server(r).anonMiB, 0)).join(', ')}; V8 heap held ${rows.map((r) => round(server(r).heapTotalMiB, 0)).join(', ')}; ` +
        `external ${rows.map((r) => round(server(r).externalMiB, 0)).join(', ')} MiB`,
      n,
    ),
    figure(
      name,
      `${database}: server open descriptors, growth once warm`,
      server(last).fds - server(settled).fds,
      'fds',
      `${what}; per round ${rows.map((r) => server(r).fds).join(', ')}`,
      n,
    ),
    figure(
      name,
      `${database}: server active handles, growth once warm`,
      server(last).handles - server(settled).handles,
      'handles',
      `${what}; per round ${rows.map((r) => server(r).handles).join(', ')}; database connections ${rows.map((r) => server(r).dbConnections).join(', ')}; most grown maps: ${growingHolders(rows)}`,
      n,
    ),
    figure(
      name,
      `${database}: runner heap after full GC, growth per 1000 builds once warm`,
      runnerHeapPer1000,
      'MiB',
      `${what}; the larger of the runners' slopes; heap after GC per round ${perRunner(rows, (x) => round(x.heapAfterGcMiB, 1))} MiB`,
      n,
    ),
    figure(
      name,
      `${database}: runner RSS above its first round, largest`,
      runnerRssAbove,
      'MiB',
      `${what}; ${first.reading.runners.length} runner processes, RSS after GET /metrics?gc=full per round ${perRunner(rows, (x) => round(x.rssMiB, 0))} MiB; ` +
        `as found before it ${perRunner(rows, (x) => round(x.rssFoundMiB, 0))}; own (RssAnon) ${perRunner(rows, (x) => round(x.anonMiB, 0))}; ` +
        `V8 heap held ${perRunner(rows, (x) => round(x.heapTotalMiB, 0))}; V8 malloc ${perRunner(rows, (x) => round(x.v8MallocedMiB, 0))}; ` +
        `external ${perRunner(rows, (x) => round(x.externalMiB, 0))} MiB`,
      n,
    ),
    figure(
      name,
      `${database}: runner open descriptors, growth once warm`,
      runnerFds(last) - runnerFds(settled),
      'fds',
      `${what}; all runners together, per round ${rows.map(runnerFds).join(', ')}`,
      n,
    ),
  ];
}
