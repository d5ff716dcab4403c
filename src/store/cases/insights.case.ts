import { describe, expect, it } from 'vitest';
import { bucketOf, quantile, type BuildFacts } from '../../core/insights.js';
import { newBuild, newRepo, newStage, useStore, type OpenFreshStore } from './fixtures.case.js';

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

    it('adds every repository and day up for the metrics, only growing as builds finish', async () => {
      const before = await store().insights.totals();
      const [a, b] = [(await store().repos.create(newRepo())).id, (await store().repos.create(newRepo())).id];
      await store().insights.record(nextBuild++, facts(a, { failedTests: [3, 3], flakyTests: [3] }));
      await store().insights.record(
        nextBuild++,
        facts(b, { day: DAY + 40, succeeded: false, durationMs: 600_000, queueMs: 0 }),
      );
      await store().insights.countCache(b, DAY + 40, false);
      const after = await store().insights.totals();
      expect([
        after.builds - before.builds,
        after.successes - before.successes,
        after.durationSumMs - before.durationSumMs,
        after.queueSumMs - before.queueSumMs,
        after.cache.misses - before.cache.misses,
        after.tests.failures - before.tests.failures,
        after.tests.flaky - before.tests.flaky,
      ]).toEqual([2, 1, 660_000, 2_000, 1, 2, 1]);
      const grew = (now: Map<number, number>, then: Map<number, number>, bucket: number) =>
        (now.get(bucket) ?? 0) - (then.get(bucket) ?? 0);
      expect(grew(after.durations, before.durations, bucketOf(600_000))).toBe(1);
      expect(grew(after.queues, before.queues, bucketOf(0))).toBe(1);
      const docker = (t: typeof after) =>
        t.runners.find((r) => r.kind === 'docker') ?? { stages: 0, busyMs: 0 };
      expect(docker(after).stages - docker(before).stages).toBe(2);
      expect(docker(after).busyMs - docker(before).busyMs).toBe(110_000);
    });

    it('finds the builds done and not counted yet, in id order, for the backfill', async () => {
      const repoId = (await store().repos.create(newRepo())).id;
      const build = async (status: 'success' | 'failure' | 'running' | 'killed') =>
        (await store().builds.create(newBuild(repoId, { status }), [newStage(1, 1)])).build.id;
      const [done, running, counted, killed] = [
        await build('success'),
        await build('running'),
        await build('failure'),
        await build('killed'),
      ];
      await store().insights.record(counted, facts(repoId));
      const ours = (ids: number[]) => ids.filter((id) => [done, running, counted, killed].includes(id));
      const later = Date.now() + 60_000;
      expect(ours(await store().insights.uncounted(0, later, 1000))).toEqual([done, killed]);
      expect(ours(await store().insights.uncounted(done, later, 1000))).toEqual([killed]);
      // Changed since `before`: left to the listener counting it now.
      expect(ours(await store().insights.uncounted(0, Date.now() - 60_000, 1000))).toEqual([]);
      const first = await store().insights.uncounted(0, later, 1);
      expect(first).toHaveLength(1);
    });
  });
}
