import type { ComponentChildren } from 'preact';
import { dayLabel, HEIGHT, niceMax, runsOf, WIDTH, xOf, yOf } from './chart-scale.js';

/** A line of a chart: its name (the legend's) and a value per day, undefined where there is none. */
export interface Series {
  name: string;
  values: readonly (number | undefined)[];
}

/**
 * A chart's frame: the scale's top and 0 on the left, in the page's text (not scaled with the
 * SVG), the first and last day under it, the legend above. Series are told apart by colour and by
 * dashes (`s1`, `s2`, … in style.css), never by colour alone.
 */
export function ChartFrame(props: {
  top: string;
  dates: readonly string[];
  legend: readonly string[];
  children: ComponentChildren;
}) {
  const first = props.dates[0];
  const last = props.dates[props.dates.length - 1];
  return (
    <figure class="chart">
      {props.legend.length > 1 ? (
        <figcaption class="legend">
          {props.legend.map((name, k) => (
            <span key={name} class={`key s${k + 1}`}>
              <svg viewBox="0 0 20 8" aria-hidden="true">
                <line x1={1} x2={19} y1={4} y2={4} />
              </svg>
              {name}
            </span>
          ))}
        </figcaption>
      ) : null}
      <div class="plot">
        <div class="y-axis" aria-hidden="true">
          <span>{props.top}</span>
          <span>0</span>
        </div>
        {props.children}
      </div>
      <div class="x-axis" aria-hidden="true">
        <span>{first === undefined ? '' : dayLabel(first)}</span>
        <span>{last === undefined || last === first ? '' : dayLabel(last)}</span>
      </div>
    </figure>
  );
}

/** Horizontal lines at 0, half and the top of the scale. */
export function Grid() {
  return (
    <g class="grid">
      {[0.5, HEIGHT / 2, HEIGHT - 0.5].map((y) => (
        <line key={y} x1={0} x2={WIDTH} y1={y} y2={y} />
      ))}
    </g>
  );
}

/**
 * Values over days as lines with a point per day that has a value; the scale runs from 0 to
 * `top` (by default a round number over the largest value). Each point's tooltip says its day and
 * value; the chart's title says what it shows.
 */
export function LineChart(props: {
  label: string;
  dates: readonly string[];
  series: readonly Series[];
  format: (value: number) => string;
  top?: number;
  /** The scale's top for the largest value (niceMax, or niceDuration for times). */
  scale?: (max: number) => number;
}) {
  const { dates, series, format } = props;
  const known = series.flatMap((s) => s.values.filter((v): v is number => v !== undefined));
  const top = props.top ?? (props.scale ?? niceMax)(Math.max(0, ...known));
  const n = dates.length;
  return (
    <ChartFrame top={format(top)} dates={dates} legend={series.map((s) => s.name)}>
      <svg
        class="chart-svg line-chart"
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-label={props.label}
      >
        <title>{props.label}</title>
        <Grid />
        {series.map((s, k) => (
          <g key={s.name} class={`series s${k + 1}`}>
            {runsOf(s.values).map((run) => (
              <polyline
                key={run[0]}
                points={run.map((at) => `${xOf(at, n)},${yOf(s.values[at] ?? 0, top)}`).join(' ')}
              />
            ))}
            {s.values.map((value, at) =>
              value === undefined ? null : (
                <circle key={at} class="point" cx={xOf(at, n)} cy={yOf(value, top)} r={3.5}>
                  <title>{`${dayLabel(dates[at] ?? '')}: ${s.name} ${format(value)}`}</title>
                </circle>
              ),
            )}
          </g>
        ))}
      </svg>
    </ChartFrame>
  );
}

const SPARK_W = 120;
const SPARK_H = 24;

/** A small trend line without axes (a step's mean time per day), for a row of a list. */
export function Sparkline({ label, values }: { label: string; values: readonly (number | undefined)[] }) {
  const top = Math.max(1, ...values.filter((v): v is number => v !== undefined));
  const x = (at: number) =>
    values.length <= 1 ? SPARK_W / 2 : 2 + (at * (SPARK_W - 4)) / (values.length - 1);
  const y = (value: number) => SPARK_H - 2 - (value / top) * (SPARK_H - 4);
  return (
    <svg class="sparkline" viewBox={`0 0 ${SPARK_W} ${SPARK_H}`} role="img" aria-label={label}>
      <title>{label}</title>
      {runsOf(values).map((run) =>
        run.length === 1 ? (
          <circle key={run[0]} cx={x(run[0] ?? 0)} cy={y(values[run[0] ?? 0] ?? 0)} r={1.5} />
        ) : (
          <polyline key={run[0]} points={run.map((at) => `${x(at)},${y(values[at] ?? 0)}`).join(' ')} />
        ),
      )}
    </svg>
  );
}
