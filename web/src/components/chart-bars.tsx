import type { ComponentChildren } from 'preact';
import { ChartFrame, Grid } from './chart-line.js';
import { dayLabel, HEIGHT, niceMax, PAD, WIDTH, yOf } from './chart-scale.js';
import type { Series } from './chart-line.js';

/**
 * Values per day as stacked bars, one colour (and pattern) per series, bottom up in the series'
 * order; each bar's tooltip says its day, series and value.
 */
export function StackedBars(props: {
  label: string;
  dates: readonly string[];
  series: readonly Series[];
  format: (value: number) => string;
  scale?: (max: number) => number;
}) {
  const { dates, series, format } = props;
  const totals = dates.map((_, at) => series.reduce((sum, s) => sum + (s.values[at] ?? 0), 0));
  const top = (props.scale ?? niceMax)(Math.max(0, ...totals));
  const slot = (WIDTH - 2 * PAD) / Math.max(1, dates.length);
  const width = Math.max(1, slot * 0.7);
  return (
    <ChartFrame top={format(top)} dates={dates} legend={series.map((s) => s.name)}>
      <svg class="chart-svg bar-chart" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={props.label}>
        <title>{props.label}</title>
        <Grid />
        {dates.map((date, at) => {
          let base = 0;
          return (
            <g key={date}>
              {series.map((s, k) => {
                const value = s.values[at] ?? 0;
                if (value <= 0) return null;
                const y0 = yOf(base, top);
                base += value;
                const y1 = yOf(base, top);
                return (
                  <rect
                    key={s.name}
                    class={`bar s${k + 1}`}
                    x={PAD + at * slot + (slot - width) / 2}
                    y={y1}
                    width={width}
                    height={Math.max(0.5, y0 - y1)}
                  >
                    <title>{`${dayLabel(date)}: ${s.name} ${format(value)}`}</title>
                  </rect>
                );
              })}
            </g>
          );
        })}
      </svg>
    </ChartFrame>
  );
}

/** A row of a bar list: what it is (a name or a link), its value and how it reads. */
export interface BarRow {
  key: string | number;
  label: ComponentChildren;
  value: number;
  text: string;
  /** Something after the bar: a trend. */
  extra?: ComponentChildren;
}

/**
 * A ranked list with a bar per row, as long as its value against the first (the largest): the
 * names stay text (and links), the bars only show the proportions the numbers after them say.
 */
export function BarList({ label, rows }: { label: string; rows: readonly BarRow[] }) {
  const top = Math.max(1, ...rows.map((row) => row.value));
  return (
    <ol class="bar-list" aria-label={label}>
      {rows.map((row) => (
        <li key={row.key}>
          <span class="bar-label">{row.label}</span>
          <svg class="meter" viewBox="0 0 100 8" preserveAspectRatio="none" aria-hidden="true">
            <rect class="track" x={0} y={0} width={100} height={8} rx={2} />
            <rect class="bar" x={0} y={0} width={Math.max(1, (row.value / top) * 100)} height={8} rx={2} />
          </svg>
          <span class="bar-value">{row.text}</span>
          {row.extra}
        </li>
      ))}
    </ol>
  );
}
