import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/core/store.js';
import type { WireDetails } from '../../src/runner/client/wire/index.js';
import { newSecret } from '../../src/store/cases/fixtures.case.js';
import { json, queueBuild } from './support/harness.js';
import { useServers } from './support/fresh.js';

const CONFIG = 'kind: pipeline\nname: build\nsteps:\n- name: test\n  image: local/busybox\n';

/** Secrets of every scope for the repository, two of them shadowing wider ones. */
async function seedSecrets(store: Store, repoId: number, namespace: string): Promise<void> {
  await store.secrets.create(newSecret({ kind: 'global' }, { name: 'shared', data: 'global-value' }));
  await store.secrets.create(
    newSecret({ kind: 'global' }, { name: 'global_only', data: 'g', pullRequest: true }),
  );
  await store.secrets.create(
    newSecret({ kind: 'namespace', namespace }, { name: 'shared', data: 'ns-value' }),
  );
  await store.secrets.create(newSecret({ kind: 'namespace', namespace: 'elsewhere' }, { name: 'foreign' }));
  await store.secrets.create(
    newSecret({ kind: 'repo', repoId }, { name: 'deploy_key', data: 'k', pullRequest: false }),
  );
  await store.secrets.create(
    newSecret({ kind: 'repo', repoId }, { name: 'npm_token', data: 'n', pullRequest: true }),
  );
  await store.secrets.create(
    newSecret({ kind: 'repo', repoId }, { name: 'push_only', data: 'p', pullRequestPush: true }),
  );
}

describe('rpc stage details', () => {
  const server = useServers();

  async function details(s: Awaited<ReturnType<typeof server>>, stageId: number): Promise<WireDetails> {
    await s.call('POST', `/rpc/v2/stage/${stageId}?machine=runner-1`);
    return json<WireDetails>(await s.call('GET', `/rpc/v2/stage/${stageId}`));
  }

  it('gives the build with its pipeline file, the repository, the stage, netrc and system facts', async () => {
    const s = await server({ netrc: { machine: 'github.com', login: 'x-token', password: 'p4ss' } });
    const { repo, build, stages } = await queueBuild(s.store, [{ name: 'build' }], {
      repo: { namespace: 'acme', name: 'site', trusted: true, timeout: 45 },
      build: { config: CONFIG, event: 'push', after: 'abc123', params: { KEY: 'v' } },
    });
    const d = await details(s, stages[0]!.id);
    expect(Buffer.from(d.config.data, 'base64').toString('utf8')).toBe(CONFIG);
    expect(d.build).toMatchObject({
      id: build.id,
      number: build.number,
      event: 'push',
      after: 'abc123',
      params: { KEY: 'v' },
    });
    expect(d.build.created).toBe(Math.floor(build.created / 1000));
    expect(d.repository).toMatchObject({
      id: repo.id,
      slug: 'acme/site',
      trusted: true,
      timeout: 45,
      git_http_url: repo.cloneUrl,
    });
    expect(d.repository).not.toHaveProperty('hook_secret');
    expect(d.stage).toMatchObject({ id: stages[0]!.id, name: 'build', machine: 'runner-1', steps: [] });
    expect(d.netrc).toEqual({ machine: 'github.com', login: 'x-token', password: 'p4ss' });
    expect(d.system).toEqual({
      proto: 'https',
      host: 'ci.example.com',
      link: 'https://ci.example.com',
      version: '1.2.3',
    });
  });

  it('refuses details of a stage no runner accepted, and of unknown stages', async () => {
    const s = await server();
    const { stages } = await queueBuild(s.store, [{ name: 'build' }]);
    expect((await s.call('GET', `/rpc/v2/stage/${stages[0]!.id}`)).status).toBe(409);
    expect((await s.call('GET', '/rpc/v2/stage/424242')).status).toBe(404);
    expect((await s.call('GET', '/rpc/v2/stage/abc')).status).toBe(400);
  });

  it('gives global, namespace and repository secrets, the narrowest scope winning a name', async () => {
    const s = await server();
    const { repo, stages } = await queueBuild(s.store, [{ name: 'build' }], { repo: { namespace: 'acme' } });
    await seedSecrets(s.store, repo.id, 'acme');
    const d = await details(s, stages[0]!.id);
    const secrets = Object.fromEntries(d.secrets.map((x) => [x.name, x.data]));
    expect(secrets).toEqual({
      shared: 'ns-value',
      global_only: 'g',
      deploy_key: 'k',
      npm_token: 'n',
      push_only: 'p',
    });
    expect(d.netrc).toBeUndefined();
  });

  it('gives builds of every other event every secret, whatever the flags', async () => {
    for (const event of ['tag', 'cron', 'promote', 'custom'] as const) {
      const s = await server();
      const { repo, stages } = await queueBuild(s.store, [{ name: 'build' }], {
        repo: { namespace: 'acme' },
        build: { event },
      });
      await seedSecrets(s.store, repo.id, 'acme');
      const names = (await details(s, stages[0]!.id)).secrets.map((x) => x.name).sort();
      expect(names, event).toEqual(['deploy_key', 'global_only', 'npm_token', 'push_only', 'shared']);
    }
  });

  it('gives pull requests only the secrets allowed for pull requests, as Drone does', async () => {
    const s = await server();
    const { repo, stages } = await queueBuild(s.store, [{ name: 'build' }], {
      repo: { namespace: 'acme' },
      build: { event: 'pull_request' },
    });
    await seedSecrets(s.store, repo.id, 'acme');
    const d = await details(s, stages[0]!.id);
    // `pull_request_push` alone does not expose a secret to pull requests (nor does it in Drone).
    expect(d.secrets.map((x) => x.name).sort()).toEqual(['global_only', 'npm_token']);
    expect(d.secrets.find((x) => x.name === 'npm_token')).toMatchObject({
      pull_request: true,
      pull_request_push: false,
    });
  });

  // The providers send no source repository once a fork is deleted: empty must not read as "ours".
  it.each([
    ['from a fork', 'mallory/site'],
    ['whose fork was deleted (no source repository)', ''],
  ])('gives no secret at all to a pull request %s', async (_case, sourceRepo) => {
    const s = await server();
    const { repo, stages } = await queueBuild(s.store, [{ name: 'build' }], {
      repo: { namespace: 'acme' },
      build: { event: 'pull_request', sourceRepo },
    });
    await seedSecrets(s.store, repo.id, 'acme');
    expect((await details(s, stages[0]!.id)).secrets).toEqual([]);
  });
});
