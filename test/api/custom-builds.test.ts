import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, enable, loginAs, tokenOf } from './client.js';
import { startHarness, type Harness } from './harness.js';

const FILE = `kind: pipeline
type: docker
name: custom
trigger:
  event: [custom]
steps:
- name: deploy
  image: alpine
  commands: [echo $TARGET]
`;

describe('custom builds: POST /api/repos/{owner}/{name}/builds', () => {
  let h: Harness;
  let token: string;
  let first: string;
  let head: string;
  let dev: string;

  beforeAll(async () => {
    h = await startHarness();
    h.github.addUser({ login: 'octocat' });
    h.github.addUser({ login: 'writer' });
    h.github.addRepo({ owner: 'octocat', name: 'app', admins: ['octocat'], writers: ['writer'] });
    first = h.github.commit('octocat/app', 'main', { '.drone.yml': FILE }, 'first');
    head = h.github.commit('octocat/app', 'main', { 'a.txt': 'a' }, 'second');
    dev = h.github.commit('octocat/app', 'dev', { 'b.txt': 'b' }, 'on dev');
    await enable(h, await loginAs(h, 'octocat'), 'octocat/app');
    token = await tokenOf(h, await loginAs(h, 'writer'));
  });
  afterAll(() => h.close());

  const create = (query: string) =>
    call(h, `/api/repos/octocat/app/builds${query}`, { method: 'POST', token });

  it('builds the default branch’s head for the caller, with the other query parameters as params', async () => {
    const answer = await create('?TARGET=production&DEBUG=1&DEBUG=2');
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({
      event: 'custom',
      trigger: 'writer',
      sender: 'writer',
      after: head,
      before: head,
      ref: 'refs/heads/main',
      source: 'main',
      target: 'main',
      message: 'second',
      title: '',
      params: { TARGET: 'production', DEBUG: '1' },
      status: 'pending',
      stages: [expect.objectContaining({ name: 'custom', status: 'pending' })],
    });
    const number = (answer.json as { number: number }).number;
    const stored = await h.store.builds.findNumber(
      (await h.store.repos.findSlug('octocat', 'app'))?.id ?? 0,
      number,
    );
    expect(stored?.params).toEqual({ TARGET: 'production', DEBUG: '1' });
  });

  it('creates a debug build with debug=true, which is not a parameter', async () => {
    const answer = await create('?debug=true&TARGET=staging');
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ params: { TARGET: 'staging' } });
    const stored = await h.store.builds.findNumber(
      (await h.store.repos.findSlug('octocat', 'app'))?.id ?? 0,
      (answer.json as { number: number }).number,
    );
    expect(stored?.debug).toBe(true);
  });

  it('builds another branch’s head, or a given commit', async () => {
    expect((await create('?branch=dev')).json).toMatchObject({
      after: dev,
      target: 'dev',
      message: 'on dev',
    });
    expect((await create(`?branch=main&commit=${first}`)).json).toMatchObject({
      after: first,
      message: 'first',
      params: {},
    });
  });

  it('answers 404 for a missing branch or commit, 400 for a bad sha or parameter name', async () => {
    const branch = await create('?branch=nope');
    expect(branch.status).toBe(404);
    expect((await create(`?commit=${'e'.repeat(40)}`)).status).toBe(404);
    const sha = await create('?commit=HEAD');
    expect(sha.status).toBe(400);
    expect((sha.json as { message: string }).message).toMatch(/^commit: /);
    const name = await create('?1BAD=x');
    expect(name.status).toBe(400);
    expect((name.json as { message: string }).message).toMatch(/^1BAD: /);
  });
});
