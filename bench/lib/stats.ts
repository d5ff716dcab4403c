/** The q-quantile (0..1) of the samples, by nearest rank; NaN for no samples. */
export function percentile(samples: readonly number[], q: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

export const median = (samples: readonly number[]): number => percentile(samples, 0.5);

/** Rounds for reports: 3 significant decimals are plenty on a noisy shared machine. */
export function round(value: number, digits = 3): number {
  return Number(value.toFixed(digits));
}
