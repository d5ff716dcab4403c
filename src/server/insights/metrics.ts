import { BUCKETS, bucketEndMs, type InsightTotals } from '../../core/insights.js';
import { counter, histogram, type HistogramSample } from '../../platform/metrics/exposition.js';

/**
 * Every fourth rollup bucket's end is a Prometheus bound: 1 s, 2.4 s, 6 s … 7.5 days, growing
 * about 2.4 times — 16 bounds, each exact since it is a bucket's end.
 */
const BOUND_STEP = 4;

/** A rollup histogram (bucket → count) as cumulative counts at the chosen bounds. */
function observed(buckets: ReadonlyMap<number, number>, count: number, sumMs: number): HistogramSample {
  const bounds: { le: number; count: number }[] = [];
  let below = 0;
  for (let bucket = 0; bucket < BUCKETS - 1; bucket++) {
    below += buckets.get(bucket) ?? 0;
    if (bucket % BOUND_STEP === 0)
      bounds.push({ le: Number((bucketEndMs(bucket) / 1000).toPrecision(6)), count: below });
  }
  return { buckets: bounds, count, sum: sumMs / 1000 };
}

/**
 * The insight rollups' all-time totals as Prometheus counters and histograms (docs/insights.md):
 * read from the database, so that every server of a cluster tells the same, and a restart does not
 * start them over. Builds finished before the rollups existed count once the backfill reached them.
 */
export function insightMetrics(totals: InsightTotals): string {
  const durations = [...totals.durations.values()].reduce((a, b) => a + b, 0);
  const queues = [...totals.queues.values()].reduce((a, b) => a + b, 0);
  return [
    counter('svc_builds_finished_total', 'Builds that finished, whatever their status.', totals.builds),
    counter('svc_builds_succeeded_total', 'Builds that finished with success.', totals.successes),
    histogram(
      'svc_build_duration_seconds',
      'Finished builds by time from their start to their end.',
      observed(totals.durations, durations, totals.durationSumMs),
    ),
    histogram(
      'svc_build_queue_seconds',
      'Finished builds by time from their creation to their start (waiting for a runner).',
      observed(totals.queues, queues, totals.queueSumMs),
    ),
    counter(
      'svc_runner_stages_total',
      'Stages that ran, by runner kind (pipeline type).',
      totals.runners.map((r) => ({ labels: { kind: r.kind }, value: r.stages })),
    ),
    counter(
      'svc_runner_busy_seconds_total',
      'Time stages ran, by runner kind (pipeline type).',
      totals.runners.map((r) => ({ labels: { kind: r.kind }, value: r.busyMs / 1000 })),
    ),
    counter('svc_cache_restores_total', 'Cache restores, by whether a cache was found.', [
      { labels: { result: 'hit' }, value: totals.cache.hits },
      { labels: { result: 'miss' }, value: totals.cache.misses },
    ]),
    counter('svc_test_failures_total', 'Failed test results in finished builds.', totals.tests.failures),
    counter(
      'svc_test_flaky_total',
      'Tests found flaky in a finished build (once per build and test).',
      totals.tests.flaky,
    ),
  ].join('');
}
