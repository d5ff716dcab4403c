import { appendFileSync, mkdirSync } from 'node:fs';
import { median, percentile, round } from './stats.js';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One benchmark figure: svc side by side with its baseline, measured in the same run. */
export interface BenchResult {
  name: string;
  metric: string;
  /** svc's figure (median of the runs) and the baseline's, in `unit`. */
  svc: number;
  baseline: number | null;
  /** svc / baseline (or baseline / svc for throughputs, said in `notes`); null without a baseline. */
  ratio: number | null;
  unit: string;
  runs: number;
  /** Percentiles of svc's runs, in `unit`. */
  p50: number;
  p99: number;
  notes: string;
}

export const RESULTS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'results');

/** Prints the result as one JSON line and appends it to bench/results/<date>.jsonl. */
export function report(result: BenchResult, now = new Date()): void {
  const line = JSON.stringify(result);
  process.stdout.write(`${line}\n`);
  mkdirSync(RESULTS_DIR, { recursive: true });
  appendFileSync(join(RESULTS_DIR, `${now.toISOString().slice(0, 10)}.jsonl`), `${line}\n`);
}

/**
 * A wall-time figure from interleaved samples: the medians of svc's and the baseline's runs, their
 * ratio, and svc's p50/p99, in milliseconds.
 */
export function timeComparison(
  what: { name: string; metric: string; notes: string },
  svc: readonly number[],
  baseline: readonly number[],
): BenchResult {
  const svcMedian = median(svc);
  const baselineMedian = median(baseline);
  return {
    ...what,
    svc: round(svcMedian, 1),
    baseline: round(baselineMedian, 1),
    ratio: round(svcMedian / baselineMedian),
    unit: 'ms',
    runs: svc.length,
    p50: round(svcMedian, 1),
    p99: round(percentile(svc, 0.99), 1),
  };
}
