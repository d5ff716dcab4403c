import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../../core/errors.js';
import type { NewPendingStatus } from '../../core/status-outbox.js';
import { newBuild, newRepo, useStore, type OpenFreshStore } from './fixtures.case.js';

/** StatusOutboxStore: one unsent status per repository, commit and context, due in order, superseded by newer ones. */
export function statusOutboxContract(open: OpenFreshStore): void {
  describe('status outbox', () => {
    const store = useStore(open);

    async function entry(overrides: Partial<NewPendingStatus> = {}): Promise<NewPendingStatus> {
      const repo = await store().repos.create(newRepo());
      const { build } = await store().builds.create(newBuild(repo.id), []);
      return {
        repoId: repo.id,
        buildId: build.id,
        commit: build.after,
        status: {
          state: 'success',
          context: 'continuous-integration/svc',
          description: 'Build is passing',
          targetUrl: `https://ci.example.com/${repo.slug}/${build.number}`,
          ref: 'refs/heads/main',
        },
        attempts: 4,
        nextAttempt: 1_000,
        lastError: 'GitHub POST /statuses: HTTP 503',
        ...overrides,
      };
    }
    const mine = async (repoId: number) =>
      (await store().statusOutbox.list()).filter((e) => e.repoId === repoId);

    it('keeps an entry with every field, and hands it out once due', async () => {
      const kept = await entry();
      await store().statusOutbox.put(kept, 500);
      const [stored] = await mine(kept.repoId);
      expect(stored).toMatchObject({ ...kept, created: 500 });
      expect(stored?.id).toBeGreaterThan(0);
      expect((await store().statusOutbox.due(999, 100)).some((e) => e.repoId === kept.repoId)).toBe(false);
      expect((await store().statusOutbox.due(1_000, 100)).map((e) => e.id)).toContain(stored?.id);
    });

    it('replaces the unsent status of the same commit and context with a newer one, under a new id', async () => {
      const older = await entry({ status: { ...(await entry()).status, state: 'running' } });
      await store().statusOutbox.put(older, 1);
      const [first] = await mine(older.repoId);
      const newer = { ...older, status: { ...older.status, state: 'failure' as const }, attempts: 1 };
      await store().statusOutbox.put(newer, 2);
      const [second, ...rest] = await mine(older.repoId);
      expect(rest).toEqual([]);
      expect(second).toMatchObject({ status: { state: 'failure' }, attempts: 1, created: 2 });
      expect(second?.id).not.toBe(first?.id);
      // Another context of the same commit is another entry.
      await store().statusOutbox.put({ ...older, status: { ...older.status, context: 'other' } }, 3);
      expect((await mine(older.repoId)).map((e) => e.status.context).sort()).toEqual([
        'continuous-integration/svc',
        'other',
      ]);
    });

    it('hands out due entries earliest first, at most `limit`', async () => {
      const a = await entry({ nextAttempt: 30 });
      const b = await entry({ nextAttempt: 10 });
      const c = await entry({ nextAttempt: 20 });
      for (const e of [a, b, c]) await store().statusOutbox.put(e, 0);
      const ours = new Set([a.repoId, b.repoId, c.repoId]);
      const due = (await store().statusOutbox.due(30, 1000)).filter((e) => ours.has(e.repoId));
      expect(due.map((e) => e.nextAttempt)).toEqual([10, 20, 30]);
      expect(await store().statusOutbox.due(30, 2)).toHaveLength(2);
    });

    it('records a failed attempt, and ignores one of an entry superseded meanwhile', async () => {
      const kept = await entry({ attempts: 1 });
      await store().statusOutbox.put(kept, 0);
      const [stored] = await mine(kept.repoId);
      await store().statusOutbox.retryLater(stored?.id ?? 0, 5_000, 'HTTP 502');
      expect((await mine(kept.repoId))[0]).toMatchObject({
        attempts: 2,
        nextAttempt: 5_000,
        lastError: 'HTTP 502',
      });
      await store().statusOutbox.put({ ...kept, attempts: 0 }, 1);
      await store().statusOutbox.retryLater(stored?.id ?? 0, 9_000, 'stale');
      await store().statusOutbox.remove(stored?.id ?? 0);
      expect(await mine(kept.repoId)).toMatchObject([{ attempts: 0, lastError: kept.lastError }]);
    });

    it('removes by id and by commit and context', async () => {
      const kept = await entry();
      await store().statusOutbox.put(kept, 0);
      const [stored] = await mine(kept.repoId);
      await store().statusOutbox.remove(stored?.id ?? 0);
      expect(await mine(kept.repoId)).toEqual([]);
      await store().statusOutbox.put(kept, 0);
      await store().statusOutbox.removeFor(kept.repoId, kept.commit, 'other');
      expect(await mine(kept.repoId)).toHaveLength(1);
      await store().statusOutbox.removeFor(kept.repoId, kept.commit, kept.status.context);
      expect(await mine(kept.repoId)).toEqual([]);
    });

    it('expires entries created before a time, and goes with its repository', async () => {
      const old = await entry();
      const fresh = await entry();
      await store().statusOutbox.put(old, 100);
      await store().statusOutbox.put(fresh, 200);
      expect(await store().statusOutbox.expire(150)).toBeGreaterThanOrEqual(1);
      expect(await mine(old.repoId)).toEqual([]);
      expect(await mine(fresh.repoId)).toHaveLength(1);
      await store().repos.delete(fresh.repoId);
      expect(await mine(fresh.repoId)).toEqual([]);
    });

    it('refuses an entry for a build that does not exist', async () => {
      const kept = await entry();
      await expect(store().statusOutbox.put({ ...kept, buildId: 987_654 }, 0)).rejects.toBeInstanceOf(
        NotFoundError,
      );
    });
  });
}
