import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Repo } from '../../src/core/repo.js';
import { testDialects } from '../support/databases.js';
import { enable, loginAs, type BrowserSession } from './client.js';
import { startHarness, type Harness } from './harness.js';

/** Four pipelines: `deploy` only runs on `release`, so on `main` `notify` must wait for `test`. */
const DAG = `kind: pipeline
type: docker
name: build
steps:
- name: compile
  image: golang
  commands:
  - go build
---
kind: pipeline
type: docker
name: test
depends_on: [build]
platform:
  os: linux
  arch: arm64
node:
  disk: ssd
concurrency:
  limit: 2
steps:
- name: unit
  image: golang
  commands:
  - go test ./...
---
kind: pipeline
type: docker
name: deploy
depends_on: [test]
trigger:
  branch: [release]
steps:
- name: ship
  image: alpine
  commands:
  - echo ship
---
kind: pipeline
type: docker
name: notify
depends_on: [deploy]
trigger:
  status: [success, failure]
steps:
- name: tell
  image: alpine
  commands:
  - echo done
`;

const SIMPLE = `kind: pipeline
type: docker
name: default
steps:
- name: echo
  image: alpine
  commands:
  - echo build \${DRONE_BUILD_NUMBER} of \${DRONE_COMMIT_SHA:0:8} on \${DRONE_BRANCH}
  - echo "$\${HOME}"
`;

/** Fresh repository of octocat's, enabled in svc; returns its slug. */
async function enabledRepo(h: Harness, session: BrowserSession, name: string): Promise<string> {
  h.github.addRepo({ owner: 'octocat', name, admins: ['octocat'] });
  await enable(h, session, `octocat/${name}`);
  return `octocat/${name}`;
}

async function repoOf(h: Harness, slug: string): Promise<Repo> {
  const [namespace = '', name = ''] = slug.split('/');
  const repo = await h.store.repos.findSlug(namespace, name);
  if (repo === undefined) throw new Error(`${slug} is not stored`);
  return repo;
}

for (const dialect of testDialects()) {
  describe.skipIf(dialect.skip)(`webhook → build on ${dialect.name}`, () => {
    let h: Harness;
    let session: BrowserSession;
    beforeAll(async () => {
      h = await startHarness({ dialect });
      h.github.addUser({ login: 'octocat' });
      session = await loginAs(h, 'octocat');
    });
    afterAll(() => h.close());

    it('turns a signed push into a build with one stage per selected pipeline, rewiring dependencies', async () => {
      const slug = await enabledRepo(h, session, 'dag');
      const sha = h.github.commit(slug, 'main', { '.drone.yml': DAG }, 'Add the pipelines');
      const wakes = h.queue.wakes;
      expect(await h.github.push(slug, 'main', `${h.url}/hook`)).toBe(200);
      const repo = await repoOf(h, slug);
      const build = await h.store.builds.findNumber(repo.id, 1);
      expect(build).toMatchObject({
        status: 'pending',
        event: 'push',
        trigger: '@hook',
        after: sha,
        ref: 'refs/heads/main',
        target: 'main',
        message: 'Add the pipelines',
        sourceRepo: slug,
        config: DAG,
      });
      const stages = await h.store.stages.list(build?.id ?? 0);
      expect(stages.map((s) => [s.number, s.name, s.status, s.dependsOn])).toEqual([
        [1, 'build', 'pending', []],
        [2, 'test', 'waiting_on_dependencies', ['build']],
        [3, 'notify', 'waiting_on_dependencies', ['test']],
      ]);
      expect(stages[1]).toMatchObject({
        kind: 'pipeline',
        type: 'docker',
        os: 'linux',
        arch: 'arm64',
        limit: 2,
      });
      expect(stages[1]?.labels).toEqual({ disk: 'ssd' });
      expect(stages[0]).toMatchObject({ os: 'linux', arch: 'amd64', onSuccess: true, onFailure: false });
      expect(stages[2]).toMatchObject({ onSuccess: true, onFailure: true });
      expect(await h.store.stages.listWithSteps(build?.id ?? 0)).toSatisfy((all: { steps: unknown[] }[]) =>
        all.every((stage) => stage.steps.length === 0),
      );
      expect(h.queue.wakes).toBe(wakes + 1);
    });
  });
}

describe('webhook → build', () => {
  let h: Harness;
  let session: BrowserSession;
  beforeAll(async () => {
    h = await startHarness();
    h.github.addUser({ login: 'octocat' });
    session = await loginAs(h, 'octocat');
  });
  afterAll(() => h.close());

  it('substitutes build variables before parsing and stores the substituted file', async () => {
    const slug = await enabledRepo(h, session, 'vars');
    h.github.commit(slug, 'main', { '.drone.yml': SIMPLE }, 'first');
    await h.github.push(slug, 'main', `${h.url}/hook`);
    const sha = h.github.commit(slug, 'main', { 'README.md': 'hi' }, 'second');
    expect(await h.github.push(slug, 'main', `${h.url}/hook`)).toBe(200);
    const build = await h.store.builds.findNumber((await repoOf(h, slug)).id, 2);
    expect(build?.config).toContain(`echo build 2 of ${sha.slice(0, 8)} on main`);
    // `$${HOME}` is the file's way to write a literal `${HOME}` for the shell: it must not fail lint.
    expect(build?.config).toContain('echo "${HOME}"');
    expect(build?.status).toBe('pending');
  });

  it('answers 401 and stores nothing for a bad signature', async () => {
    const slug = await enabledRepo(h, session, 'badsig');
    h.github.commit(slug, 'main', { '.drone.yml': SIMPLE });
    const before = await h.store.builds.count();
    expect(await h.github.push(slug, 'main', `${h.url}/hook`, { secret: 'not-the-secret' })).toBe(401);
    expect(await h.store.builds.count()).toBe(before);
    expect((await repoOf(h, slug)).counter).toBe(0);
  });

  it('answers 401 for a repository svc does not know or that is not enabled', async () => {
    h.github.addRepo({ owner: 'octocat', name: 'unknown', admins: ['octocat'] });
    h.github.commit('octocat/unknown', 'main', { '.drone.yml': SIMPLE });
    const before = await h.store.builds.count();
    expect(await h.github.push('octocat/unknown', 'main', `${h.url}/hook`, { secret: 'guess' })).toBe(401);
    const slug = await enabledRepo(h, session, 'disabled');
    h.github.commit(slug, 'main', { '.drone.yml': SIMPLE });
    const repo = await repoOf(h, slug);
    await h.store.repos.update({ ...repo, active: false });
    expect(await h.github.push(slug, 'main', `${h.url}/hook`)).toBe(401);
    expect(await h.store.builds.count()).toBe(before);
  });

  // Two different 401 texts would confirm to anyone that a private repository is enabled here.
  it('answers an unknown repository and a wrong signature alike', async () => {
    const slug = await enabledRepo(h, session, 'probed');
    const [owner = '', name = ''] = slug.split('/');
    const send = async (repo: { id: number; owner: string; name: string }) => {
      const body = JSON.stringify({
        ref: 'refs/heads/main',
        repository: {
          id: repo.id,
          name: repo.name,
          full_name: `${repo.owner}/${repo.name}`,
          owner: { login: repo.owner },
        },
      });
      const answer = await fetch(`${h.url}/hook`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-github-event': 'push',
          'x-hub-signature-256': `sha256=${'0'.repeat(64)}`,
        },
        body,
      });
      return { status: answer.status, text: await answer.text() };
    };
    const stored = await repoOf(h, slug);
    const enabled = await send({ id: Number(stored.uid), owner, name });
    const unknown = await send({ id: 987_654_321, owner: 'octocat', name: 'never-enabled' });
    expect(enabled.status).toBe(401);
    expect(unknown).toEqual(enabled);
    expect(enabled.text).not.toContain(name);
  });

  it('makes a build in state error with the lint errors and their positions, and no stages', async () => {
    const slug = await enabledRepo(h, session, 'lint');
    const broken =
      'kind: pipeline\ntype: docker\nname: default\nsteps:\n- name: build\n  commands:\n  - make\n  privileged: true\n';
    h.github.commit(slug, 'main', { '.drone.yml': broken });
    expect(await h.github.push(slug, 'main', `${h.url}/hook`)).toBe(200);
    const build = await h.store.builds.findNumber((await repoOf(h, slug)).id, 1);
    expect(build?.status).toBe('error');
    expect(build?.error).toMatch(/^\.drone\.yml: line \d+, column \d+: /);
    expect(build?.error).toContain('image');
    expect(build?.error).toContain('privileged');
    expect(build?.finished).toBeGreaterThan(0);
    expect(await h.store.stages.list(build?.id ?? 0)).toEqual([]);
  });

  // CVE-2026-58370's class: commit metadata rewriting the pipeline after (or without) approval.
  it('refuses a build whose commit message would rewrite the pipeline file (a privileged step in a trusted repository)', async () => {
    const slug = await enabledRepo(h, session, 'metadata');
    const stored = await repoOf(h, slug);
    await h.store.repos.update({ ...stored, trusted: true });
    const file =
      'kind: pipeline\ntype: docker\nname: default\nsteps:\n- {name: greet, image: alpine, commands: ["echo ${DRONE_COMMIT_MESSAGE}"]}\n';
    h.github.commit(slug, 'main', { '.drone.yml': file }, 'hi"], privileged: true, x: ["');
    expect(await h.github.push(slug, 'main', `${h.url}/hook`)).toBe(200);
    const build = await h.store.builds.findNumber(stored.id, 1);
    expect(build?.status).toBe('error');
    expect(build?.error).toContain('change the structure of the pipeline file at steps[0]');
    expect(await h.store.stages.list(build?.id ?? 0)).toEqual([]);
  });

  it('makes a build in state error when there is no pipeline file, naming the paths tried', async () => {
    const slug = await enabledRepo(h, session, 'nofile');
    const sha = h.github.commit(slug, 'main', { 'README.md': 'no pipeline here' });
    expect(await h.github.push(slug, 'main', `${h.url}/hook`)).toBe(200);
    const build = await h.store.builds.findNumber((await repoOf(h, slug)).id, 1);
    expect(build?.status).toBe('error');
    expect(build?.error).toBe(`no pipeline file found at ${sha}: tried .svc.yml, .drone.yml`);
  });

  it('prefers .svc.yml over .drone.yml, and reads only the configured path when one is set', async () => {
    const slug = await enabledRepo(h, session, 'paths');
    const svc = SIMPLE.replace('name: default', 'name: from-svc');
    h.github.commit(slug, 'main', {
      '.drone.yml': SIMPLE,
      '.svc.yml': svc,
      'ci/pipeline.yml': SIMPLE.replace('name: default', 'name: custom'),
    });
    await h.github.push(slug, 'main', `${h.url}/hook`);
    const repo = await repoOf(h, slug);
    const first = await h.store.builds.findNumber(repo.id, 1);
    expect((await h.store.stages.list(first?.id ?? 0)).map((s) => s.name)).toEqual(['from-svc']);
    await h.store.repos.update({ ...repo, configPath: 'ci/pipeline.yml' });
    // A new push: the same delivery sent again would be taken as a replay and build nothing.
    h.github.commit(slug, 'main', { 'README.md': 'configured' }, 'second');
    await h.github.push(slug, 'main', `${h.url}/hook`);
    const second = await h.store.builds.findNumber(repo.id, 2);
    expect((await h.store.stages.list(second?.id ?? 0)).map((s) => s.name)).toEqual(['custom']);
  });

  it('makes no build for [skip ci] in the message (any case) or a pull request title', async () => {
    const slug = await enabledRepo(h, session, 'skip');
    h.github.commit(slug, 'main', { '.drone.yml': SIMPLE }, 'docs: typo [CI SKIP]');
    const before = await h.store.builds.count();
    const answer = await fetchHook(h, slug, 'main');
    expect(answer).toEqual({
      status: 200,
      body: { result: 'skipped', reason: 'the commit message asks for no build ([skip ci])' },
    });
    h.github.commit(slug, 'feature', { '.drone.yml': SIMPLE }, 'work');
    const pr = await h.github.pullRequest(slug, 'feature', `${h.url}/hook`, { title: 'WIP [skip ci]' });
    expect(pr.status).toBe(200);
    expect(await h.store.builds.count()).toBe(before);
  });

  it('makes no build when no pipeline trigger matches, and says why', async () => {
    const slug = await enabledRepo(h, session, 'nomatch');
    const onlyTags = SIMPLE.replace('steps:', 'trigger:\n  event: [tag]\nsteps:');
    h.github.commit(slug, 'main', { '.drone.yml': onlyTags });
    const before = await h.store.builds.count();
    const answer = await fetchHook(h, slug, 'main');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      result: 'skipped',
      reason: "no pipeline's trigger matches this push (branch main, ref refs/heads/main)",
    });
    expect(await h.store.builds.count()).toBe(before);
    h.github.tag(slug, 'v1.0.0');
    expect(await h.github.pushTag(slug, 'v1.0.0', `${h.url}/hook`)).toBe(200);
    expect(await h.store.builds.count()).toBe(before + 1);
  });

  it('builds pull requests from forks and records where they come from', async () => {
    const slug = await enabledRepo(h, session, 'upstream');
    h.github.addUser({ login: 'forker' });
    h.github.addRepo({ owner: 'forker', name: 'upstream', admins: ['forker'] });
    h.github.commit(slug, 'main', { '.drone.yml': SIMPLE });
    h.github.commit('forker/upstream', 'patch', { '.drone.yml': SIMPLE, 'fix.txt': 'fix' }, 'Fix it');
    const pr = await h.github.pullRequest(slug, 'patch', `${h.url}/hook`, {
      fork: 'forker/upstream',
      title: 'Fix',
    });
    expect(pr.status).toBe(200);
    const build = await h.store.builds.findNumber((await repoOf(h, slug)).id, 1);
    expect(build).toMatchObject({
      event: 'pull_request',
      sourceRepo: 'forker/upstream',
      title: 'Fix',
      target: 'main',
    });
  });

  it('holds every stage of a protected repository for approval', async () => {
    const slug = await enabledRepo(h, session, 'guarded');
    const repo = await repoOf(h, slug);
    await h.store.repos.update({ ...repo, protected: true });
    h.github.commit(slug, 'main', { '.drone.yml': DAG });
    const wakes = h.queue.wakes;
    expect(await h.github.push(slug, 'main', `${h.url}/hook`)).toBe(200);
    const build = await h.store.builds.findNumber(repo.id, 1);
    expect(build?.status).toBe('blocked');
    expect((await h.store.stages.list(build?.id ?? 0)).map((s) => s.status)).toEqual([
      'blocked',
      'blocked',
      'blocked',
    ]);
    expect(h.queue.wakes).toBe(wakes);
  });

  it('answers 200 with the reason for verified events it does not build', async () => {
    const slug = await enabledRepo(h, session, 'ping');
    const [hook] = h.github.hooks(slug);
    const repo = await repoOf(h, slug);
    const payload = {
      zen: 'Keep it logically awesome.',
      hook_id: 1,
      repository: { id: Number(repo.uid), name: 'ping', full_name: slug, owner: { login: 'octocat' } },
    };
    expect(await h.github.deliver(`${h.url}/hook`, 'ping', payload, hook?.secret ?? '')).toBe(200);
    expect(await h.github.deliver(`${h.url}/hook`, 'ping', payload, 'wrong')).toBe(401);
  });
});

/** Pushes the branch's head as the repository's hook would, and reads svc's JSON answer. */
async function fetchHook(
  h: Harness,
  slug: string,
  branch: string,
): Promise<{ status: number; body: unknown }> {
  const [hook] = h.github.hooks(slug);
  if (hook === undefined) throw new Error(`${slug} has no hook`);
  let answered: { status: number; body: unknown } | undefined;
  // Capture svc's answer: deliver through a local relay that records it.
  const relay = await import('node:http').then(({ createServer }) =>
    createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        void fetch(`${h.url}/hook`, {
          method: 'POST',
          headers: Object.fromEntries(
            Object.entries(request.headers).filter(
              (entry): entry is [string, string] => typeof entry[1] === 'string',
            ),
          ),
          body: Buffer.concat(chunks),
        }).then(async (answer) => {
          answered = { status: answer.status, body: await answer.json() };
          response.writeHead(answer.status).end();
        });
      });
    }),
  );
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const address = relay.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  try {
    await h.github.push(slug, branch, `http://127.0.0.1:${port}/hook`, { secret: hook.secret });
  } finally {
    relay.close();
  }
  if (answered === undefined) throw new Error('svc did not answer the hook');
  return answered;
}
