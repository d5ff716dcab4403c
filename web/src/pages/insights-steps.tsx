import type { BarRow } from '../components/chart-bars.js';
import { Sparkline } from '../components/chart-line.js';
import { dayLabel } from '../components/chart-scale.js';
import { millis } from '../components/units.js';
import type { Insights } from '../wire.js';

/** A day in the numbers' tables: `Mar 5`, its full date for machines. */
export function Day({ date }: { date: string }) {
  return <time dateTime={date}>{dayLabel(date)}</time>;
}

/** A slow step's row: its name, its mean time as a bar, its mean per day as a trend. */
export function StepRow(step: Insights['slowest_steps'][number]): BarRow {
  const failures = step.failures > 0 ? `, ${step.failures} failed` : '';
  return {
    key: step.name,
    label: step.name,
    value: step.mean_ms,
    text: `${millis(step.mean_ms)} mean, ${step.runs} runs${failures}`,
    extra: (
      <Sparkline
        label={`${step.name}: mean time per day`}
        values={step.daily.map((day) => (day.runs > 0 ? day.mean_ms : undefined))}
      />
    ),
  };
}
