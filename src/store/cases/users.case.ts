import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError } from '../../core/errors.js';
import { newUser, unique, useStore, type OpenFreshStore } from './fixtures.case.js';

/** UserStore: create/find/list/update/delete and the unique login and token. */
export function usersContract(open: OpenFreshStore): void {
  describe('users', () => {
    const store = useStore(open);

    it('creates a user with an id and timestamps, and finds it by id, login and token hash', async () => {
      const before = Date.now();
      const input = newUser({ machine: true, admin: true, email: 'zoë@example.com 🚀' });
      const user = await store().users.create(input);
      expect(user).toMatchObject(input);
      expect(user.id).toBeGreaterThan(0);
      expect(user.created).toBeGreaterThanOrEqual(before);
      expect(user.created).toBeLessThanOrEqual(Date.now());
      expect(user.updated).toBe(user.created);
      expect(await store().users.find(user.id)).toEqual(user);
      expect(await store().users.findLogin(input.login)).toEqual(user);
      expect(await store().users.findTokenHash(input.tokenHash)).toEqual(user);
    });

    it('replaces refreshed provider credentials where the old token is stored, only there', async () => {
      const user = await store().users.create(
        newUser({ scmToken: 'old-scm', scmRefresh: 'r1', scmExpiry: 1 }),
      );
      const other = await store().users.create(newUser({ scmToken: 'other-scm' }));
      const fresh = { token: 'new-scm', refresh: 'r2', expiry: 2_000_000_000_000 };
      expect(await store().users.replaceScmToken('old-scm', fresh)).toBe(1);
      expect(await store().users.find(user.id)).toMatchObject({
        scmToken: 'new-scm',
        scmRefresh: 'r2',
        scmExpiry: fresh.expiry,
      });
      // A second refresh of the same old token finds nothing to replace: the newer pair stays.
      expect(await store().users.replaceScmToken('old-scm', { token: 'stale', refresh: '', expiry: 0 })).toBe(
        0,
      );
      expect((await store().users.find(user.id))?.scmToken).toBe('new-scm');
      expect((await store().users.find(other.id))?.scmToken).toBe('other-scm');
      expect(await store().users.replaceScmToken('', fresh)).toBe(0);
    });

    it('finds a person by the provider’s id, which two accounts cannot share; many have none', async () => {
      const uid = unique('9');
      const person = await store().users.create(newUser({ scmUid: uid }));
      expect(await store().users.findScmUid(uid)).toEqual(person);
      await expect(store().users.create(newUser({ scmUid: uid }))).rejects.toThrow(ConflictError);
      await expect(store().users.create(newUser({ scmUid: uid }))).rejects.toThrow(/provider's account/);
      const a = await store().users.create(newUser());
      const b = await store().users.create(newUser());
      expect([a.scmUid, b.scmUid]).toEqual(['', '']);
      expect(await store().users.findScmUid('')).toBeUndefined();
      const renamed = await store().users.update({ ...person, login: unique('renamed-') });
      expect(await store().users.findScmUid(uid)).toEqual(renamed);
    });

    it('moves the session generation on, and no other update moves it back', async () => {
      const user = await store().users.create(newUser());
      expect(user.sessionGen).toBe(0);
      await store().users.endSessions(user.id);
      await store().users.endSessions(user.id);
      expect((await store().users.find(user.id))?.sessionGen).toBe(2);
      // An update from a copy read before the logouts keeps them.
      await store().users.update({ ...user, email: 'changed@example.com' });
      expect(await store().users.find(user.id)).toMatchObject({
        sessionGen: 2,
        email: 'changed@example.com',
      });
    });

    it('lets exactly one of two refreshes racing on one token store its pair, whole', async () => {
      const user = await store().users.create(newUser({ scmToken: 'race-old', scmRefresh: 'r0' }));
      const answers = await Promise.all([
        store().users.replaceScmToken('race-old', { token: 'race-a', refresh: 'ra', expiry: 1 }),
        store().users.replaceScmToken('race-old', { token: 'race-b', refresh: 'rb', expiry: 2 }),
      ]);
      expect(answers.sort()).toEqual([0, 1]);
      const stored = await store().users.find(user.id);
      expect([
        ['race-a', 'ra', 1],
        ['race-b', 'rb', 2],
      ]).toContainEqual([stored?.scmToken, stored?.scmRefresh, stored?.scmExpiry]);
      // The winner's token is the one a later refresh replaces.
      expect(
        await store().users.replaceScmToken(stored?.scmToken ?? '', { token: 'c', refresh: '', expiry: 3 }),
      ).toBe(1);
    });

    it('returns undefined for a user that does not exist', async () => {
      expect(await store().users.find(999_999)).toBeUndefined();
      expect(await store().users.findLogin('nobody')).toBeUndefined();
      expect(await store().users.findTokenHash('no-such-hash')).toBeUndefined();
    });

    it('lists users by login and counts them', async () => {
      const before = await store().users.count();
      await store().users.create(newUser({ login: 'zz-last' }));
      await store().users.create(newUser({ login: 'aa-first' }));
      const list = await store().users.list();
      expect(list).toHaveLength(before + 2);
      // Only the ends: collations order punctuation and case differently on each database.
      expect(list[0]?.login).toBe('aa-first');
      expect(list.at(-1)?.login).toBe('zz-last');
      expect(await store().users.count()).toBe(before + 2);
    });

    it('refuses a second user with the same login or token, saying what collided', async () => {
      const user = await store().users.create(newUser({ login: 'octocat' }));
      const sameLogin = store().users.create(newUser({ login: 'octocat' }));
      await expect(sameLogin).rejects.toThrow(ConflictError);
      await expect(sameLogin).rejects.toThrow('user "octocat" already exists');
      await expect(store().users.create(newUser({ tokenHash: user.tokenHash }))).rejects.toThrow(
        /already has the token/,
      );
    });

    it('updates every field and refuses a login that another user has', async () => {
      const user = await store().users.create(newUser());
      const changed = {
        ...user,
        email: 'new@example.com',
        active: false,
        admin: true,
        scmToken: 'gho_new',
        scmRefresh: '',
        scmExpiry: 0,
        lastLogin: Date.now(),
      };
      const updated = await store().users.update(changed);
      expect(updated.updated).toBeGreaterThanOrEqual(user.updated);
      expect(await store().users.find(user.id)).toEqual(updated);
      // Writing the same values twice in the same millisecond still finds the row.
      await store().users.update(updated);
      await store().users.update(updated);

      const other = await store().users.create(newUser());
      await expect(store().users.update({ ...other, login: user.login })).rejects.toThrow(
        `user "${user.login}" already exists`,
      );
    });

    it('deletes a user; updating a deleted user is NotFoundError, deleting it again is harmless', async () => {
      const user = await store().users.create(newUser());
      await store().users.delete(user.id);
      expect(await store().users.find(user.id)).toBeUndefined();
      await expect(store().users.update(user)).rejects.toThrow(NotFoundError);
      await store().users.delete(user.id);
    });
  });
}
