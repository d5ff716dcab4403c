import { describe, expect, it } from 'vitest';
import type { RecentBuild } from '../wire.js';
import { secondsOf, sparklineLabel } from './build-sparkline.js';

const build = (number: number, status: string, started: number, finished: number): RecentBuild => ({
  number,
  status,
  started,
  finished,
});

describe('the sparkline of a repository’s recent builds', () => {
  it('says how many succeeded and the median of the finished builds’ durations', () => {
    const recent = [
      build(5, 'running', 1_000, 0),
      build(4, 'success', 1_000, 1_190),
      build(3, 'failure', 1_000, 1_030),
      build(2, 'success', 1_000, 1_095),
      build(1, 'pending', 0, 0),
    ];
    // Finished: 30, 95, 190 seconds; the running and the pending build count as builds, not durations.
    expect(sparklineLabel(recent)).toBe('recent builds: 2 of 5 succeeded, median 1m 35s');
    expect(sparklineLabel(recent.slice(0, 3))).toBe('recent builds: 1 of 3 succeeded, median 1m 50s');
    expect(sparklineLabel([build(1, 'running', 1_000, 0)])).toBe('recent builds: 0 of 1 succeeded');
  });

  it('measures a running build until now, one not started as none', () => {
    expect(secondsOf(build(1, 'running', 1_000, 0), 1_042)).toBe(42);
    expect(secondsOf(build(1, 'success', 1_000, 1_010), 5_000)).toBe(10);
    expect(secondsOf(build(1, 'pending', 0, 0), 5_000)).toBe(0);
  });
});
