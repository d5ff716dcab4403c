import { describe, expect, it } from 'vitest';
import type { NewEnvironment } from '../../core/environment.js';
import { ConflictError, NotFoundError, StaleVersionError } from '../../core/errors.js';
import { newBuild, newRepo, newSecret, newStage, useStore, type OpenFreshStore } from './fixtures.case.js';

function production(repoId: number, overrides: Partial<NewEnvironment> = {}): NewEnvironment {
  return {
    repoId,
    name: 'production',
    approvers: { users: [3, 7], teams: [{ org: 'acme', slug: 'release', uid: '7001' }] },
    required: 2,
    branches: ['main', 'release/*'],
    timeout: 60,
    ...overrides,
  };
}

/**
 * EnvironmentStore and ApprovalStore, with what deployments add to stages (their deployment) and
 * secrets (their environment).
 */
export function environmentsContract(open: OpenFreshStore): void {
  describe('environments and approvals', () => {
    const store = useStore(open);

    it('creates, finds, lists by name, updates optimistically and deletes environments', async () => {
      const repo = await store().repos.create(newRepo());
      const created = await store().environments.create(production(repo.id));
      expect(created).toMatchObject({ ...production(repo.id), version: 1 });
      expect(await store().environments.find(repo.id, 'production')).toEqual(created);
      await store().environments.create(
        production(repo.id, { name: 'staging', approvers: { users: [], teams: [] } }),
      );
      expect((await store().environments.list(repo.id)).map((e) => e.name)).toEqual([
        'production',
        'staging',
      ]);
      const updated = await store().environments.update({ ...created, required: 1, branches: [] });
      expect(updated).toMatchObject({ required: 1, branches: [], version: 2 });
      expect(await store().environments.find(repo.id, 'production')).toEqual(updated);
      await expect(store().environments.update({ ...created, timeout: 5 })).rejects.toThrow(
        StaleVersionError,
      );
      await store().environments.delete(created.id);
      expect(await store().environments.find(repo.id, 'production')).toBeUndefined();
    });

    it('refuses a second environment of a name in a repository, and a missing repository', async () => {
      const repo = await store().repos.create(newRepo());
      await store().environments.create(production(repo.id));
      await expect(store().environments.create(production(repo.id))).rejects.toThrow(ConflictError);
      await expect(store().environments.create(production(999_999))).rejects.toThrow(NotFoundError);
      const other = await store().repos.create(newRepo());
      await expect(store().environments.create(production(other.id))).resolves.toMatchObject({
        repoId: other.id,
      });
    });

    it('keeps a stage’s deployment, and approvals with their build in the order given', async () => {
      const repo = await store().repos.create(newRepo());
      const deployment = {
        environment: 'production',
        required: 2,
        approved: false,
        deadline: 1_900_000_000_000,
      };
      const { build, stages } = await store().builds.create(newBuild(repo.id), [
        newStage(1, 1, { status: 'blocked', deployment }),
        newStage(2, 1),
      ]);
      const [deploying, plain] = await store().stages.list(build.id);
      expect(deploying?.deployment).toEqual(deployment);
      expect(plain?.deployment).toBeUndefined();
      if (deploying === undefined) throw new Error('no stage');
      const approved = await store().stages.update({
        ...deploying,
        deployment: { ...deployment, approved: true },
      });
      expect((await store().stages.find(approved.id))?.deployment?.approved).toBe(true);
      const stageId = stages[0]?.id ?? 0;
      const first = { buildId: build.id, stageId, stage: 1, userId: 3, login: 'alice', comment: 'ok' };
      const a = await store().approvals.add({ ...first, decision: 'approve', created: 1_000 });
      const b = await store().approvals.add({
        ...first,
        userId: 0,
        login: '',
        decision: 'timeout',
        comment: '',
        created: 2_000,
      });
      expect(await store().approvals.list(build.id)).toEqual([a, b]);
      await expect(
        store().approvals.add({ ...first, buildId: 999_999, decision: 'approve', created: 3_000 }),
      ).rejects.toThrow(NotFoundError);
      await store().builds.delete(build.id);
      expect(await store().approvals.list(build.id)).toEqual([]);
    });

    it('keeps a secret’s environment', async () => {
      const repo = await store().repos.create(newRepo());
      const scope = { kind: 'repo', repoId: repo.id } as const;
      const bound = await store().secrets.create(
        newSecret(scope, { name: 'DEPLOY_KEY', environment: 'production' }),
      );
      expect((await store().secrets.find(bound.id))?.environment).toBe('production');
      await store().secrets.update({ ...bound, environment: '' });
      expect((await store().secrets.findName(scope, 'DEPLOY_KEY'))?.environment).toBe('');
    });
  });
}
