import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError, StaleVersionError } from '../../core/errors.js';
import { newCron, newRepo, useStore, type OpenFreshStore } from './fixtures.case.js';

/** CronStore: create/find/list/update/delete, due jobs, and one winner among servers picking a job. */
export function cronsContract(open: OpenFreshStore): void {
  describe('crons', () => {
    const store = useStore(open);

    it('creates a job and finds it by id and by repository and name; lists a repository’s jobs by name', async () => {
      const repo = await store().repos.create(newRepo());
      const input = newCron(repo.id, { name: 'weekly', expr: '0 0 * * 0', target: 'production' });
      const cron = await store().crons.create(input);
      expect(cron).toMatchObject({ ...input, version: 1 });
      expect(await store().crons.find(cron.id)).toEqual(cron);
      expect(await store().crons.findName(repo.id, 'weekly')).toEqual(cron);
      await store().crons.create(newCron(repo.id, { name: 'daily' }));
      expect((await store().crons.list(repo.id)).map((c) => c.name)).toEqual(['daily', 'weekly']);
    });

    it('refuses a second job of the same name in a repository, and a missing repository', async () => {
      const repo = await store().repos.create(newRepo());
      await store().crons.create(newCron(repo.id, { name: 'nightly' }));
      await expect(store().crons.create(newCron(repo.id, { name: 'nightly' }))).rejects.toThrow(
        ConflictError,
      );
      await expect(store().crons.create(newCron(999_999))).rejects.toThrow(NotFoundError);
    });

    it('lists enabled jobs due at or before a time, oldest first', async () => {
      const repo = await store().repos.create(newRepo());
      const at = 2_000_000_000_000;
      const late = await store().crons.create(newCron(repo.id, { next: at }));
      const early = await store().crons.create(newCron(repo.id, { next: at - 60_000 }));
      await store().crons.create(newCron(repo.id, { next: at + 1 }));
      await store().crons.create(newCron(repo.id, { next: at - 1, disabled: true }));
      await store().crons.create(newCron(repo.id, { next: 0 }));
      const ready = (await store().crons.listReady(at)).filter((c) => c.repoId === repo.id);
      expect(ready.map((c) => c.id)).toEqual([early.id, late.id]);
    });

    it('lets one of two servers advancing the same due job win', async () => {
      const repo = await store().repos.create(newRepo());
      const cron = await store().crons.create(newCron(repo.id));
      const results = await Promise.allSettled([
        store().crons.update({ ...cron, prev: cron.next, next: cron.next + 86_400_000 }),
        store().crons.update({ ...cron, prev: cron.next, next: cron.next + 86_400_001 }),
      ]);
      const won = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
      const lost = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
      expect(won).toHaveLength(1);
      expect(lost[0]).toBeInstanceOf(StaleVersionError);
      expect(await store().crons.find(cron.id)).toEqual(won[0]);
    });

    it('deletes a job; updating it afterwards is NotFoundError', async () => {
      const repo = await store().repos.create(newRepo());
      const cron = await store().crons.create(newCron(repo.id));
      await store().crons.delete(cron.id);
      expect(await store().crons.find(cron.id)).toBeUndefined();
      await expect(store().crons.update(cron)).rejects.toThrow(NotFoundError);
    });
  });
}
