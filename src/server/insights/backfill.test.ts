import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Build } from '../../core/build.js';
import type { Store } from '../../core/store.js';
import { newBuild, newRepo, newStage } from '../../store/cases/fixtures.case.js';
import { openStore } from '../../store/index.js';
import { InsightBackfill } from './backfill.js';
import { InsightRollup } from './rollup.js';

const HOUR = 3600_000;

describe('InsightBackfill: builds the rollups missed are counted once', () => {
  let dir: string;
  let store: Store;
  let repoId: number;
  const logger = pino({ level: 'silent' });
  const rollup = () => new InsightRollup({ store, logger });
  /** A build that finished an hour ago, before the rollups knew of it. */
  const finishedEarlier = async (status: 'success' | 'failure' = 'success') => {
    const started = Date.now() - 2 * HOUR;
    const { build } = await store.builds.create(
      newBuild(repoId, { status, started, finished: started + 90_000 }),
      [newStage(1, 1)],
    );
    return build;
  };
  const backfill = (extra: Partial<ConstructorParameters<typeof InsightBackfill>[0]> = {}) =>
    new InsightBackfill({ store, rollup: rollup(), logger, now: () => Date.now() + 2 * 60_000, ...extra });
  const today = () => Math.floor(Date.now() / 86_400_000);

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-backfill-'));
    store = await openStore({ datasource: { driver: 'embedded_sql', path: join(dir, 'svc.sqlite') } });
    repoId = (await store.repos.create(newRepo())).id;
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('counts the done builds nobody counted, in batches, and nothing on the next pass', async () => {
    const builds: Build[] = [];
    for (let i = 0; i < 230; i++) builds.push(await finishedEarlier(i % 10 === 0 ? 'failure' : 'success'));
    await store.builds.create(newBuild(repoId, { status: 'running', started: Date.now() }), [newStage(1, 1)]);
    // One already counted by the listener: not counted twice.
    const first = builds[0];
    if (first === undefined) throw new Error('no build');
    await store.insights.record(first.id, await rollup().factsOf(first));
    expect(await backfill().pass()).toBe(229);
    const [day] = await store.insights.buildDays([repoId], today() - 1, today());
    expect(day?.builds).toBe(230);
    expect(day?.successes).toBe(207);
    expect(day?.durationSumMs).toBe(230 * 90_000);
    expect(await backfill().pass()).toBe(0);
  });

  it('leaves a build changed in the last minute to the listener, and counts nothing off the lease', async () => {
    await finishedEarlier();
    expect(await backfill({ now: Date.now }).pass()).toBe(0);
    expect(await backfill({ leader: { held: false } }).pass()).toBe(0);
    expect(await backfill({ leader: { held: true } }).pass()).toBe(1);
  });

  it('passes over a build whose facts cannot be read, and counts the others', async () => {
    const [bad, good] = [await finishedEarlier(), await finishedEarlier()];
    const warned: unknown[] = [];
    const broken = {
      factsOf: (build: Build) =>
        build.id === bad.id ? Promise.reject(new Error('stage rows unreadable')) : rollup().factsOf(build),
    };
    const counting = backfill({
      rollup: broken,
      logger: { ...logger, warn: (fields: unknown) => warned.push(fields) } as unknown as typeof logger,
    });
    expect(await counting.pass()).toBe(1);
    expect(warned).toEqual([expect.objectContaining({ build: bad.id })]);
    expect(await store.insights.uncounted(0, Date.now() + HOUR, 10)).toEqual([bad.id]);
    expect(await store.insights.uncounted(good.id - 1, Date.now() + HOUR, 10)).toEqual([]);
  });

  it('stops between two builds when the server closes, and the next pass counts the rest', async () => {
    for (let i = 0; i < 20; i++) await finishedEarlier();
    const reached = Promise.withResolvers<void>();
    const release = Promise.withResolvers<void>();
    const gated = {
      factsOf: async (build: Build) => {
        reached.resolve();
        await release.promise;
        return rollup().factsOf(build);
      },
    };
    const counting = backfill({ rollup: gated });
    counting.start();
    await reached.promise;
    const stopped = counting.stop();
    release.resolve();
    await stopped;
    // The build under way when it stopped was counted, no other.
    expect(await store.insights.uncounted(0, Date.now() + HOUR, 100)).toHaveLength(19);
    expect(await backfill().pass()).toBe(19);
  });
});
