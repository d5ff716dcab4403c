/** One sample of a gauge: its labels (none for a plain gauge) and value. */
export interface Sample {
  readonly labels?: Readonly<Record<string, string>>;
  readonly value: number;
}

/** Label values as Prometheus' text format wants them: backslash, quote and newline escaped. */
function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** One sample line: `name{labels} value`. */
function sampleLine(name: string, sample: Sample): string {
  const labels = Object.entries(sample.labels ?? {});
  const text = labels.length === 0 ? '' : `{${labels.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(',')}}`;
  return `${name}${text} ${Number.isFinite(sample.value) ? sample.value : 'NaN'}`;
}

/** One metric family of `type` in Prometheus' text format (0.0.4): HELP, TYPE, every sample. */
function family(type: string, name: string, help: string, samples: number | readonly Sample[]): string {
  const lines = [`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`];
  for (const sample of typeof samples === 'number' ? [{ value: samples }] : samples)
    lines.push(sampleLine(name, sample));
  return `${lines.join('\n')}\n`;
}

/** One gauge, with its HELP and TYPE lines and every sample. */
export function gauge(name: string, help: string, samples: number | readonly Sample[]): string {
  return family('gauge', name, help, samples);
}

/** One counter (a name ending in `_total`): a sum that only grows, but for a restart from zero. */
export function counter(name: string, help: string, samples: number | readonly Sample[]): string {
  return family('counter', name, help, samples);
}

/** A histogram's observations: cumulative counts at each upper bound (ascending), their count and sum. */
export interface HistogramSample {
  readonly buckets: readonly { readonly le: number; readonly count: number }[];
  readonly count: number;
  readonly sum: number;
}

/** One histogram: `_bucket` lines for each bound and `+Inf`, then `_sum` and `_count`. */
export function histogram(name: string, help: string, observed: HistogramSample): string {
  const lines = [`# HELP ${name} ${help}`, `# TYPE ${name} histogram`];
  for (const { le, count } of observed.buckets)
    lines.push(sampleLine(`${name}_bucket`, { labels: { le: String(le) }, value: count }));
  lines.push(sampleLine(`${name}_bucket`, { labels: { le: '+Inf' }, value: observed.count }));
  lines.push(sampleLine(`${name}_sum`, { value: observed.sum }));
  lines.push(sampleLine(`${name}_count`, { value: observed.count }));
  return `${lines.join('\n')}\n`;
}
