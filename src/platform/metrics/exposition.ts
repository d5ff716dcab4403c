/** One sample of a gauge: its labels (none for a plain gauge) and value. */
export interface Sample {
  readonly labels?: Readonly<Record<string, string>>;
  readonly value: number;
}

/** Label values as Prometheus' text format wants them: backslash, quote and newline escaped. */
function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** One gauge in Prometheus' text format (0.0.4), with its HELP and TYPE lines and every sample. */
export function gauge(name: string, help: string, samples: number | readonly Sample[]): string {
  const lines = [`# HELP ${name} ${help}`, `# TYPE ${name} gauge`];
  for (const sample of typeof samples === 'number' ? [{ value: samples }] : samples) {
    const labels = Object.entries(sample.labels ?? {});
    const text =
      labels.length === 0 ? '' : `{${labels.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(',')}}`;
    lines.push(`${name}${text} ${Number.isFinite(sample.value) ? sample.value : 'NaN'}`);
  }
  return `${lines.join('\n')}\n`;
}
