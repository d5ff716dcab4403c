import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError, StaleVersionError } from '../../core/errors.js';
import {
  newBuild,
  newCron,
  newRepo,
  newSecret,
  newStage,
  newUser,
  unique,
  useStore,
  type OpenFreshStore,
} from './fixtures.case.js';

/** RepoStore: create/find/list/update/delete, optimistic locking, and what a deletion takes with it. */
export function reposContract(open: OpenFreshStore): void {
  describe('repos', () => {
    const store = useStore(open);

    it('creates a repository at version 1 with counter 0, and finds it by id, uid and slug', async () => {
      const input = newRepo({ namespace: 'octo-org', private: true, visibility: 'internal', trusted: true });
      const repo = await store().repos.create(input);
      expect(repo).toMatchObject({ ...input, counter: 0, version: 1 });
      expect(await store().repos.find(repo.id)).toEqual(repo);
      expect(await store().repos.findUid(input.uid)).toEqual(repo);
      expect(await store().repos.findSlug('octo-org', input.name)).toEqual(repo);
      expect(await store().repos.findSlug('octo-org', 'missing')).toBeUndefined();
    });

    it('tells a namespace’s provider id from its most recently synchronized repository', async () => {
      const namespace = unique('ns-');
      expect(await store().repos.findNamespaceUid(namespace)).toBe('');
      await store().repos.create(newRepo({ namespace, namespaceUid: '', synced: 5 }));
      expect(await store().repos.findNamespaceUid(namespace)).toBe('');
      await store().repos.create(newRepo({ namespace, namespaceUid: 'old-org', synced: 10 }));
      await store().repos.create(newRepo({ namespace, namespaceUid: 'new-org', synced: 20 }));
      expect(await store().repos.findNamespaceUid(namespace)).toBe('new-org');
    });

    it('refuses a taken uid or slug, saying which', async () => {
      const repo = await store().repos.create(newRepo());
      await expect(store().repos.create(newRepo({ uid: repo.uid }))).rejects.toThrow(
        `repository with uid "${repo.uid}" already exists (${repo.slug})`,
      );
      const sameSlug = store().repos.create(newRepo({ namespace: repo.namespace, name: repo.name }));
      await expect(sameSlug).rejects.toThrow(ConflictError);
      await expect(sameSlug).rejects.toThrow(`repository "${repo.slug}" already exists`);
    });

    it('lists all, the active ones, and those a user has any permission on, by slug', async () => {
      const user = await store().users.create(newUser());
      const readable = await store().repos.create(newRepo({ namespace: 'listing', name: 'b' }));
      const adminOnly = await store().repos.create(
        newRepo({ namespace: 'listing', name: 'a', active: false }),
      );
      const none = await store().repos.create(newRepo({ namespace: 'listing', name: 'c' }));
      await store().perms.upsert({
        userId: user.id,
        repoId: readable.id,
        read: true,
        write: false,
        admin: false,
        synced: 1,
      });
      await store().perms.upsert({
        userId: user.id,
        repoId: adminOnly.id,
        read: false,
        write: false,
        admin: true,
        synced: 1,
      });
      await store().perms.upsert({
        userId: user.id,
        repoId: none.id,
        read: false,
        write: false,
        admin: false,
        synced: 1,
      });

      const listed = await store().repos.listUser(user.id);
      expect(listed.map(({ repo }) => repo.slug)).toEqual(['listing/a', 'listing/b']);
      expect(listed.map(({ perm }) => [perm.userId, perm.repoId, perm.read, perm.admin])).toEqual([
        [user.id, adminOnly.id, false, true],
        [user.id, readable.id, true, false],
      ]);
      expect(listed[1]?.perm).toEqual(await store().perms.find(user.id, readable.id));
      const all = await store().repos.list();
      expect(all.map((r) => r.id)).toEqual(expect.arrayContaining([readable.id, adminOnly.id, none.id]));
      expect(await store().repos.count()).toBe(all.length);
      const active = await store().repos.listActive();
      expect(active.every((r) => r.active)).toBe(true);
      expect(active.map((r) => r.id)).not.toContain(adminOnly.id);
    });

    it('updates with optimistic locking: a stale version loses and the stored row keeps the winner', async () => {
      const repo = await store().repos.create(newRepo());
      const first = await store().repos.update({ ...repo, timeout: 90, configPath: '.ci.yml' });
      expect(first.version).toBe(2);
      await expect(store().repos.update({ ...repo, timeout: 5 })).rejects.toThrow(StaleVersionError);
      expect(await store().repos.find(repo.id)).toMatchObject({
        timeout: 90,
        configPath: '.ci.yml',
        version: 2,
      });

      const [a, b] = await Promise.allSettled([
        store().repos.update({ ...first, timeout: 1 }),
        store().repos.update({ ...first, timeout: 2 }),
      ]);
      const results = [a, b];
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r) => r.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost[0]?.reason).toBeInstanceOf(StaleVersionError);
      const winner = won[0]?.value;
      expect(await store().repos.find(repo.id)).toMatchObject({ timeout: winner?.timeout, version: 3 });
    });

    it('keeps the build counter when an update carries an old one', async () => {
      const repo = await store().repos.create(newRepo());
      await store().builds.create(newBuild(repo.id), []);
      const updated = await store().repos.update({ ...repo, active: false });
      expect(updated.counter).toBe(1);
      expect((await store().repos.find(repo.id))?.counter).toBe(1);
    });

    it('sets the build counter, never below an existing build number', async () => {
      const repo = await store().repos.create(newRepo());
      await store().builds.create(newBuild(repo.id), []);
      await store().builds.create(newBuild(repo.id), []);
      expect(await store().repos.setCounter(repo.id, 1)).toBe(false);
      expect((await store().repos.find(repo.id))?.counter).toBe(2);
      expect(await store().repos.setCounter(repo.id, 41)).toBe(true);
      const next = await store().builds.create(newBuild(repo.id), []);
      expect(next.build.number).toBe(42);
      expect((await store().repos.find(repo.id))?.version).toBe(repo.version);
    });

    it('says NotFoundError when updating a deleted repository', async () => {
      const repo = await store().repos.create(newRepo());
      await store().repos.delete(repo.id);
      await expect(store().repos.update(repo)).rejects.toThrow(NotFoundError);
    });

    it('deletes its builds, stages, steps, logs, permissions, secrets and cron jobs with it', async () => {
      const user = await store().users.create(newUser());
      const repo = await store().repos.create(newRepo());
      const other = await store().repos.create(newRepo());
      const { build, stages } = await store().builds.create(newBuild(repo.id), [newStage(1)]);
      const steps = await store().steps.list(stages[0]?.id ?? 0);
      await store().logs.create(steps[0]?.id ?? 0, [{ pos: 0, out: 'hello', time: 0 }]);
      await store().perms.upsert({
        userId: user.id,
        repoId: repo.id,
        read: true,
        write: true,
        admin: true,
        synced: 0,
      });
      const secret = await store().secrets.create(newSecret({ kind: 'repo', repoId: repo.id }));
      const namespaced = await store().secrets.create(
        newSecret({ kind: 'namespace', namespace: repo.namespace }),
      );
      const cron = await store().crons.create(newCron(repo.id));
      const kept = await store().builds.create(newBuild(other.id), [newStage(1)]);

      await store().repos.delete(repo.id);

      expect(await store().repos.find(repo.id)).toBeUndefined();
      expect(await store().builds.find(build.id)).toBeUndefined();
      expect(await store().stages.find(stages[0]?.id ?? 0)).toBeUndefined();
      expect(await store().steps.find(steps[0]?.id ?? 0)).toBeUndefined();
      expect(await store().logs.find(steps[0]?.id ?? 0)).toBeUndefined();
      expect(await store().perms.find(user.id, repo.id)).toBeUndefined();
      expect(await store().secrets.find(secret.id)).toBeUndefined();
      expect(await store().crons.find(cron.id)).toBeUndefined();
      expect(await store().secrets.find(namespaced.id)).toBeDefined();
      expect(await store().builds.find(kept.build.id)).toBeDefined();
      expect(await store().users.find(user.id)).toBeDefined();
    });
  });
}
