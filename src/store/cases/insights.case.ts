import { describe, expect, it } from 'vitest';
import { bucketOf, quantile, type BuildFacts } from '../../core/insights.js';
import { newRepo, useStore, type OpenFreshStore } from './fixtures.case.js';

const DAY = 20_000;

function facts(repoId: number, overrides: Partial<BuildFacts> = {}): BuildFacts {
  return {
    repoId,
    day: DAY,
    succeeded: true,
    durationMs: 60_000,
    queueMs: 2_000,
    steps: [
      { name: 'clone', durationMs: 1_000, failed: false },
      { name: 'test', durationMs: 50_000, failed: false },
    ],
    stages: [{ kind: 'docker', busyMs: 55_000 }],
    failedTests: [],
    flakyTests: [],
    ...overrides,
  };
}

/** InsightStore: each build counted once, counters summed per day across repositories, every rollup. */
export function insightsContract(open: OpenFreshStore): void {
  describe('insights', () => {
    const store = useStore(open);
    let nextBuild = 1_000_000 + Math.floor(Math.random() * 1_000_000);

    it('counts a build once, and sums builds, durations and histograms per day', async () => {
      const repoId = (await store().repos.create(newRepo())).id;
      const first = nextBuild++;
      expect(await store().insights.record(first, facts(repoId))).toBe(true);
      expect(await store().insights.record(first, facts(repoId))).toBe(false);
      await store().insights.record(nextBuild++, facts(repoId, { succeeded: false, durationMs: 600_000 }));
      await store().insights.record(nextBuild++, facts(repoId, { day: DAY + 1, queueMs: 30_000 }));
      const days = await store().insights.buildDays([repoId], DAY, DAY + 6);
      expect(days.map((d) => [d.day, d.builds, d.successes, d.durationSumMs, d.queueSumMs])).toEqual([
        [DAY, 2, 1, 660_000, 4_000],
        [DAY + 1, 1, 1, 60_000, 30_000],
      ]);
      const [today] = days;
      expect(today?.durations).toEqual(
        new Map([
          [bucketOf(60_000), 1],
          [bucketOf(600_000), 1],
        ]),
      );
      expect(quantile(today?.durations ?? new Map(), 0.95)).toBeGreaterThan(500_000);
      expect(await store().insights.buildDays([repoId], DAY + 2, DAY + 9)).toEqual([]);
    });

    it('sums an organisation’s repositories, steps by name, runners by kind, tests by case, caches', async () => {
      const [a, b] = [(await store().repos.create(newRepo())).id, (await store().repos.create(newRepo())).id];
      await store().insights.record(nextBuild++, facts(a, { failedTests: [7, 7, 9], flakyTests: [9] }));
      await store().insights.record(
        nextBuild++,
        facts(b, {
          steps: [{ name: 'test', durationMs: 70_000, failed: true }],
          stages: [
            { kind: 'docker', busyMs: 10_000 },
            { kind: 'kubernetes', busyMs: 5_000 },
          ],
          failedTests: [9],
        }),
      );
      expect((await store().insights.buildDays([a, b], DAY, DAY))[0]?.builds).toBe(2);
      expect(
        (await store().insights.stepDays([a, b], DAY, DAY)).map((s) => [
          s.name,
          s.runs,
          s.failures,
          s.durationSumMs,
        ]),
      ).toEqual([
        ['clone', 1, 0, 1_000],
        ['test', 2, 1, 120_000],
      ]);
      expect(
        (await store().insights.runnerDays([a, b], DAY, DAY)).map((r) => [r.kind, r.stages, r.busyMs]),
      ).toEqual([
        ['docker', 2, 65_000],
        ['kubernetes', 1, 5_000],
      ]);
      expect(await store().insights.testTotals([a, b], DAY, DAY, 10)).toEqual([
        // As many failures: the flakier first.
        { caseId: 9, failures: 2, flaky: 1 },
        { caseId: 7, failures: 2, flaky: 0 },
      ]);
      expect(await store().insights.testTotals([a], DAY, DAY, 1)).toEqual([
        { caseId: 7, failures: 2, flaky: 0 },
      ]);
      await store().insights.countCache(a, DAY, true);
      await store().insights.countCache(a, DAY, true);
      await store().insights.countCache(b, DAY, false);
      expect(await store().insights.cacheDays([a, b], DAY, DAY)).toEqual([{ day: DAY, hits: 2, misses: 1 }]);
    });

    it('adds builds finishing at the same moment without losing one', async () => {
      const repoId = (await store().repos.create(newRepo())).id;
      await Promise.all(
        Array.from({ length: 20 }, () => store().insights.record(nextBuild++, facts(repoId))),
      );
      const [day] = await store().insights.buildDays([repoId], DAY, DAY);
      expect(day?.builds).toBe(20);
      expect((await store().insights.stepDays([repoId], DAY, DAY)).find((s) => s.name === 'test')?.runs).toBe(
        20,
      );
    });
  });
}
