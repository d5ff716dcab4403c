/** Geometry of the insights charts, in the SVG's own units (its viewBox; it scales to the width). */
export const WIDTH = 600;
export const HEIGHT = 150;
/** Room kept inside the frame, so that points and strokes at the edges are not clipped. */
export const PAD = 6;

/** A round top for a scale that holds `max`: 1, 2 or 5 times a power of ten (1 for nothing). */
export function niceMax(max: number): number {
  if (!(max > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) if (step * power >= max) return step * power;
  return 10 * power;
}

const S = 1000;
const M = 60 * S;
const H = 60 * M;
/** Round tops for durations: whole seconds, minutes and hours as a clock shows them. */
const DURATIONS = [1, 2, 5, 10, 15, 30]
  .flatMap((n) => [n * S])
  .concat(
    [1, 2, 5, 10, 15, 30].map((n) => n * M),
    [1, 2, 3, 6, 12, 24].map((n) => n * H),
  );

/** A round top for a scale of durations that holds `ms`: `5m`, not 8m 20s; 1 s for nothing. */
export function niceDuration(ms: number): number {
  return DURATIONS.find((top) => top >= ms) ?? niceMax(ms / (24 * H)) * 24 * H;
}

/** The x of point `at` of `count`, evenly spread (one point sits in the middle). */
export function xOf(at: number, count: number): number {
  if (count <= 1) return WIDTH / 2;
  return PAD + (at * (WIDTH - 2 * PAD)) / (count - 1);
}

/** The y of `value` on a scale from 0 (bottom) to `top`. */
export function yOf(value: number, top: number): number {
  return HEIGHT - PAD - (Math.min(value, top) / top) * (HEIGHT - 2 * PAD);
}

/**
 * The runs of known values, each as its points' indexes: a line joins the days that have a value
 * and breaks where one has none (a day without builds has no duration, not a duration of 0).
 */
export function runsOf(values: readonly (number | undefined)[]): number[][] {
  const runs: number[][] = [];
  let run: number[] = [];
  values.forEach((value, at) => {
    if (value === undefined) {
      if (run.length > 0) runs.push(run);
      run = [];
    } else run.push(at);
  });
  if (run.length > 0) runs.push(run);
  return runs;
}

/** `83%` for a rate from 0 to 1; one decimal under 10% and over 99% where it matters. */
export function percent(rate: number): string {
  const value = rate * 100;
  if (value > 0 && value < 10) return `${value.toFixed(1)}%`;
  if (value > 99 && value < 100) return `${value.toFixed(1)}%`;
  return `${Math.round(value)}%`;
}

/** `Mar 5` for a UTC day `2026-03-05`, as the charts' axes and tables name days. */
export function dayLabel(date: string): string {
  const day = new Date(`${date}T00:00:00Z`);
  if (Number.isNaN(day.getTime())) return date;
  return day.toLocaleDateString('en', { month: 'short', day: 'numeric', timeZone: 'UTC' });
}
