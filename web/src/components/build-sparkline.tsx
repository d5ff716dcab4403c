import type { RecentBuild } from '../wire.js';
import { span } from './status.js';

const BAR = 5;
const GAP = 2;
const HEIGHT = 24;
/** A build that took no time yet (pending) still shows as a sliver of its colour. */
const LEAST = 2;

/** The colour a status is drawn in: the same groups as the status words' colours. */
function tone(status: string): 'ok' | 'bad' | 'wait' | 'run' | 'none' {
  switch (status) {
    case 'success':
      return 'ok';
    case 'failure':
    case 'error':
    case 'killed':
    case 'declined':
      return 'bad';
    case 'pending':
    case 'blocked':
    case 'waiting_on_dependencies':
      return 'wait';
    case 'running':
      return 'run';
    default:
      return 'none';
  }
}

/** How long a build took in seconds: a running one until `now`, one not started yet none. */
export function secondsOf(build: RecentBuild, now: number): number {
  if (!build.started) return 0;
  return Math.max(0, (build.finished || now) - build.started);
}

/**
 * What the sparkline says in words: how many of the builds succeeded and their median duration.
 * The median is of the finished builds only: a running build's time so far is not its duration.
 */
export function sparklineLabel(recent: readonly RecentBuild[]): string {
  const succeeded = recent.filter((build) => build.status === 'success').length;
  const done = recent
    .filter((build) => build.started > 0 && build.finished > 0)
    .map((build) => build.finished - build.started)
    .sort((a, b) => a - b);
  const middle = Math.floor(done.length / 2);
  const median =
    done.length === 0
      ? undefined
      : done.length % 2 === 1
        ? done[middle]
        : ((done[middle - 1] ?? 0) + (done[middle] ?? 0)) / 2;
  const words = `recent builds: ${succeeded} of ${recent.length} succeeded`;
  return median === undefined ? words : `${words}, median ${span(median)}`;
}

/**
 * A repository's recent builds (given newest first) as a row of bars, oldest left: each as tall as
 * the build took (to the longest), coloured by its status. One image to assistive technology, named
 * by what it shows in words; each bar's tooltip names its build for pointer users. It is `slots`
 * bars wide whatever the number of builds, newest right, so that a list's sparklines line up.
 */
export function BuildSparkline(props: { recent: readonly RecentBuild[]; slots?: number; now?: number }) {
  const { recent, now = Date.now() / 1000 } = props;
  if (recent.length === 0) return null;
  const oldestFirst = [...recent].reverse();
  const seconds = oldestFirst.map((build) => secondsOf(build, now));
  const longest = Math.max(1, ...seconds);
  const slots = Math.max(props.slots ?? 0, oldestFirst.length);
  const width = slots * (BAR + GAP) - GAP;
  const first = slots - oldestFirst.length;
  const label = sparklineLabel(recent);
  return (
    <svg
      class="build-sparkline"
      viewBox={`0 0 ${width} ${HEIGHT}`}
      width={width}
      height={HEIGHT}
      role="img"
      aria-label={label}
    >
      <title>{label}</title>
      {oldestFirst.map((build, at) => {
        const height = Math.max(LEAST, Math.round(((seconds[at] ?? 0) / longest) * HEIGHT));
        const took = build.started ? `, ${span(seconds[at] ?? 0)}` : '';
        return (
          <rect
            key={build.number}
            class={`bar tone-${tone(build.status)}`}
            x={(first + at) * (BAR + GAP)}
            y={HEIGHT - height}
            width={BAR}
            height={height}
            rx={1}
          >
            <title>{`#${build.number} ${build.status.replaceAll('_', ' ')}${took}`}</title>
          </rect>
        );
      })}
    </svg>
  );
}
