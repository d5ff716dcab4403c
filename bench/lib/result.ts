import { appendFileSync, mkdirSync } from 'node:fs';
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
