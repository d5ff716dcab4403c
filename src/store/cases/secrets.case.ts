import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError } from '../../core/errors.js';
import type { SecretScope } from '../../core/secret.js';
import { newRepo, newSecret, unique, useStore, type OpenFreshStore } from './fixtures.case.js';

/** SecretStore: the three scopes, uniqueness within a scope, create/find/list/update/delete. */
export function secretsContract(open: OpenFreshStore): void {
  describe('secrets', () => {
    const store = useStore(open);

    it('keeps secrets of the same name apart in the repository, namespace and global scopes', async () => {
      const repo = await store().repos.create(newRepo({ namespace: 'scoped' }));
      const scopes: SecretScope[] = [
        { kind: 'repo', repoId: repo.id },
        { kind: 'namespace', namespace: 'scoped' },
        { kind: 'global' },
      ];
      const created = [];
      for (const [i, scope] of scopes.entries()) {
        created.push(
          await store().secrets.create(newSecret(scope, { name: 'docker_password', data: `value-${i}` })),
        );
      }
      for (const [i, scope] of scopes.entries()) {
        const found = await store().secrets.findName(scope, 'docker_password');
        expect(found).toEqual(created[i]);
        expect(found?.scope).toEqual(scope);
        expect(found?.data).toBe(`value-${i}`);
      }
      expect(
        await store().secrets.findName({ kind: 'namespace', namespace: 'other' }, 'docker_password'),
      ).toBeUndefined();
    });

    it('binds an organization secret to its namespace’s id once, whoever asks first', async () => {
      const scope: SecretScope = { kind: 'namespace', namespace: unique('bind-') };
      const secret = await store().secrets.create(newSecret(scope));
      expect(secret.namespaceUid).toBe('');
      expect(await store().secrets.bindNamespace(secret.id, '')).toBe(false);
      expect(await store().secrets.bindNamespace(secret.id, '4242')).toBe(true);
      expect(await store().secrets.bindNamespace(secret.id, '9999')).toBe(false);
      expect((await store().secrets.find(secret.id))?.namespaceUid).toBe('4242');
      const global = await store().secrets.create(newSecret({ kind: 'global' }, { namespaceUid: '7' }));
      expect(global.namespaceUid).toBe('7');
      expect((await store().secrets.find(global.id))?.namespaceUid).toBe('');
      expect(await store().secrets.bindNamespace(global.id, '4242')).toBe(false);
    });

    it('refuses a second secret of the same name in one scope', async () => {
      const scope: SecretScope = { kind: 'namespace', namespace: 'dupes' };
      await store().secrets.create(newSecret(scope, { name: 'token' }));
      const duplicate = store().secrets.create(newSecret(scope, { name: 'token' }));
      await expect(duplicate).rejects.toThrow(ConflictError);
      await expect(duplicate).rejects.toThrow('secret "token" already exists in namespace "dupes"');
    });

    it('lists exactly the given scope, by name', async () => {
      const repo = await store().repos.create(newRepo());
      const scope: SecretScope = { kind: 'repo', repoId: repo.id };
      await store().secrets.create(newSecret(scope, { name: 'zeta' }));
      await store().secrets.create(newSecret(scope, { name: 'alpha' }));
      await store().secrets.create(newSecret({ kind: 'global' }, { name: 'global_only' }));
      expect((await store().secrets.list(scope)).map((s) => s.name)).toEqual(['alpha', 'zeta']);
      expect((await store().secrets.list({ kind: 'global' })).map((s) => s.name)).toContain('global_only');
    });

    it('lists every secret of one kind of scope, by scope then name', async () => {
      const repo = await store().repos.create(newRepo());
      await store().secrets.create(newSecret({ kind: 'namespace', namespace: 'all-b' }, { name: 'one' }));
      await store().secrets.create(newSecret({ kind: 'namespace', namespace: 'all-a' }, { name: 'two' }));
      await store().secrets.create(newSecret({ kind: 'namespace', namespace: 'all-a' }, { name: 'one' }));
      await store().secrets.create(newSecret({ kind: 'repo', repoId: repo.id }, { name: 'repo_only' }));
      const all = await store().secrets.listAll('namespace');
      const mine = all.filter((s) => s.scope.kind === 'namespace' && s.scope.namespace.startsWith('all-'));
      expect(mine.map((s) => [s.scope, s.name])).toEqual([
        [{ kind: 'namespace', namespace: 'all-a' }, 'one'],
        [{ kind: 'namespace', namespace: 'all-a' }, 'two'],
        [{ kind: 'namespace', namespace: 'all-b' }, 'one'],
      ]);
      expect(all.every((s) => s.scope.kind === 'namespace')).toBe(true);
    });

    it('updates a secret’s value and flags, and deletes it', async () => {
      const secret = await store().secrets.create(newSecret({ kind: 'global' }, { data: 'multi\nline ✓' }));
      expect((await store().secrets.find(secret.id))?.data).toBe('multi\nline ✓');
      const updated = await store().secrets.update({
        ...secret,
        data: 'rotated',
        pullRequest: true,
        pullRequestPush: true,
      });
      expect(await store().secrets.find(secret.id)).toEqual(updated);
      await store().secrets.delete(secret.id);
      expect(await store().secrets.find(secret.id)).toBeUndefined();
      await expect(store().secrets.update(updated)).rejects.toThrow(NotFoundError);
    });

    it('says NotFoundError for a repository that does not exist', async () => {
      await expect(store().secrets.create(newSecret({ kind: 'repo', repoId: 999_999 }))).rejects.toThrow(
        NotFoundError,
      );
    });
  });
}
