import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../../core/errors.js';
import { newRepo, newUser, useStore, type OpenFreshStore } from './fixtures.case.js';

/** PermStore: upsert (create or replace), find, listRepo, delete. */
export function permsContract(open: OpenFreshStore): void {
  describe('perms', () => {
    const store = useStore(open);

    it('creates a permission, then replaces it keeping its creation time', async () => {
      const user = await store().users.create(newUser());
      const repo = await store().repos.create(newRepo());
      const before = Date.now();
      const created = await store().perms.upsert({
        userId: user.id,
        repoId: repo.id,
        read: true,
        write: false,
        admin: false,
        synced: 5,
      });
      expect(created).toMatchObject({
        userId: user.id,
        repoId: repo.id,
        read: true,
        write: false,
        admin: false,
        synced: 5,
      });
      expect(created.created).toBeGreaterThanOrEqual(before);
      expect(await store().perms.find(user.id, repo.id)).toEqual(created);

      const replaced = await store().perms.upsert({
        userId: user.id,
        repoId: repo.id,
        read: true,
        write: true,
        admin: true,
        synced: 6,
      });
      expect(replaced).toMatchObject({ write: true, admin: true, synced: 6, created: created.created });
      expect(replaced.updated).toBeGreaterThanOrEqual(created.updated);
      expect(await store().perms.find(user.id, repo.id)).toEqual(replaced);
      // The same values again still counts as found.
      expect(await store().perms.upsert({ ...replaced })).toMatchObject({ synced: 6 });
    });

    it('answers finds asked for at the same time (read together), for several users and repositories', async () => {
      const [a, b] = await Promise.all([store().users.create(newUser()), store().users.create(newUser())]);
      const [one, two] = await Promise.all([
        store().repos.create(newRepo()),
        store().repos.create(newRepo()),
      ]);
      if (!a || !b || !one || !two) throw new Error('two users and two repositories');
      const perm = (userId: number, repoId: number, admin: boolean) =>
        store().perms.upsert({ userId, repoId, read: true, write: admin, admin, synced: 1 });
      const aOne = await perm(a.id, one.id, true);
      const aTwo = await perm(a.id, two.id, false);
      const bTwo = await perm(b.id, two.id, true);
      const found = await Promise.all([
        store().perms.find(a.id, one.id),
        store().perms.find(a.id, two.id),
        store().perms.find(b.id, one.id),
        store().perms.find(b.id, two.id),
        store().perms.find(a.id, one.id),
      ]);
      expect(found).toEqual([aOne, aTwo, undefined, bTwo, aOne]);
    });

    it('lists a repository’s permissions by user and deletes one', async () => {
      const repo = await store().repos.create(newRepo());
      const a = await store().users.create(newUser());
      const b = await store().users.create(newUser());
      await store().perms.upsert({
        userId: b.id,
        repoId: repo.id,
        read: true,
        write: false,
        admin: false,
        synced: 0,
      });
      await store().perms.upsert({
        userId: a.id,
        repoId: repo.id,
        read: true,
        write: true,
        admin: false,
        synced: 0,
      });
      expect((await store().perms.listRepo(repo.id)).map((p) => p.userId)).toEqual([a.id, b.id]);
      await store().perms.delete(a.id, repo.id);
      expect(await store().perms.find(a.id, repo.id)).toBeUndefined();
      expect((await store().perms.listRepo(repo.id)).map((p) => p.userId)).toEqual([b.id]);
    });

    it('gives one row when the same permission is upserted concurrently', async () => {
      const user = await store().users.create(newUser());
      const repo = await store().repos.create(newRepo());
      await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          store().perms.upsert({
            userId: user.id,
            repoId: repo.id,
            read: true,
            write: i % 2 === 0,
            admin: false,
            synced: i,
          }),
        ),
      );
      expect(await store().perms.listRepo(repo.id)).toHaveLength(1);
    });

    it('deletes a user’s permissions with the user', async () => {
      const user = await store().users.create(newUser());
      const repo = await store().repos.create(newRepo());
      await store().perms.upsert({
        userId: user.id,
        repoId: repo.id,
        read: true,
        write: false,
        admin: false,
        synced: 0,
      });
      await store().users.delete(user.id);
      expect(await store().perms.find(user.id, repo.id)).toBeUndefined();
    });

    it('says NotFoundError for a repository or user that does not exist', async () => {
      const user = await store().users.create(newUser());
      await expect(
        store().perms.upsert({
          userId: user.id,
          repoId: 999_999,
          read: true,
          write: false,
          admin: false,
          synced: 0,
        }),
      ).rejects.toThrow(NotFoundError);
    });
  });
}
