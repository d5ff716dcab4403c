import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Build } from '../../src/core/build.js';
import { call, enable, loginAs, tokenOf } from './client.js';
import { eventually, startHarness, type Harness } from './harness.js';
import { runStage } from './runner-flow.js';

const PIPELINE = `kind: pipeline
type: docker
name: build
steps:
- name: test
  image: busybox
  commands: [echo ok]
`;

/** The word a badge shows (its second text). */
function word(svg: string): string | undefined {
  return /aria-label="build: ([a-z]+)"/.exec(svg)?.[1];
}

/** The attributes of the one Project of a cc.xml answer. */
function project(xml: string): Record<string, string> {
  const element = /<Projects><Project ([^>]*)><\/Project><\/Projects>/.exec(xml)?.[1] ?? '';
  return Object.fromEntries([...element.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1] ?? '', m[2] ?? '']));
}

describe('badges', () => {
  let h: Harness;
  let reader: string;
  let n = 0;
  beforeAll(async () => {
    h = await startHarness();
    for (const login of ['octocat', 'reader']) h.github.addUser({ login });
    h.github.addRepo({ owner: 'octocat', name: 'lib', private: false, admins: ['octocat'] });
    h.github.addRepo({
      owner: 'octocat',
      name: 'secret',
      private: true,
      admins: ['octocat'],
      readers: ['reader'],
    });
    const owner = await loginAs(h, 'octocat');
    await enable(h, owner, 'octocat/lib');
    await enable(h, owner, 'octocat/secret');
    reader = await tokenOf(h, await loginAs(h, 'reader'));
    expect((await call(h, '/api/user/repos', { token: reader })).status).toBe(200);
  });
  afterAll(() => h.close());

  async function push(slug: string, branch: string, pipeline = PIPELINE): Promise<Build> {
    n += 1;
    h.github.commit(slug, branch, { '.drone.yml': pipeline, 'n.txt': String(n) }, `commit ${n}`);
    expect(await h.github.push(slug, branch, `${h.url}/hook`)).toBe(200);
    const [namespace = '', name = ''] = slug.split('/');
    const repo = await h.store.repos.findSlug(namespace, name);
    return eventually(async () => {
      const [newest] = await h.store.builds.list(repo?.id ?? 0, { page: 1, perPage: 1 });
      return newest?.message === `commit ${n}` ? newest : undefined;
    });
  }

  async function badge(query = '', token?: string): Promise<string | undefined> {
    const answer = await call(
      h,
      `/api/badges/octocat/lib/status.svg${query}`,
      token === undefined ? {} : { token },
    );
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    // Image proxies must not keep a badge: it would show a status long gone.
    expect(answer.headers.get('cache-control')).toMatch(/no-cache/);
    expect(answer.headers.get('cache-control')).toMatch(/max-age=0/);
    expect(answer.text).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    return word(answer.text);
  }

  it('shows each status of the default branch’s newest build with Drone’s words', async () => {
    expect(await badge()).toBe('none');
    expect((await call(h, '/api/badges/octocat/lib/cc.xml')).status).toBe(404);

    const first = await push('octocat/lib', 'main');
    expect(await badge()).toBe('started');
    const building = project((await call(h, '/api/badges/octocat/lib/cc.xml')).text);
    expect(building).toMatchObject({
      name: 'octocat/lib',
      activity: 'Building',
      lastBuildStatus: 'Unknown',
      lastBuildLabel: 'Unknown',
    });

    await runStage(h, first, 'success');
    expect(await badge()).toBe('success');
    const cc = await call(h, '/api/badges/octocat/lib/cc.xml');
    expect(cc.status).toBe(200);
    expect(cc.headers.get('content-type')).toMatch(/^application\/xml/);
    expect(cc.text).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<Projects><Project /);
    const done = await h.store.builds.find(first.id);
    expect(project(cc.text)).toEqual({
      name: 'octocat/lib',
      activity: 'Sleeping',
      lastBuildStatus: 'Success',
      lastBuildLabel: String(first.number),
      lastBuildTime: new Date(done?.started ?? 0).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      webUrl: `${h.url}/octocat/lib/${first.number}`,
    });

    await runStage(h, await push('octocat/lib', 'main'), 'failure');
    expect(await badge()).toBe('failure');
    expect(project((await call(h, '/api/badges/octocat/lib/cc.xml')).text)).toMatchObject({
      activity: 'Sleeping',
      lastBuildStatus: 'Failure',
    });

    const broken = await push('octocat/lib', 'main', 'kind: pipeline\nsteps: [unclosed\n');
    expect(broken.status).toBe('error');
    expect(await badge()).toBe('error');
    expect(project((await call(h, '/api/badges/octocat/lib/cc.xml')).text)).toMatchObject({
      lastBuildStatus: 'Exception',
      lastBuildLabel: String(broken.number),
    });
  });

  it('shows the badge of another branch or of a ref', async () => {
    expect(await badge('?branch=dev')).toBe('none');
    await runStage(h, await push('octocat/lib', 'dev'), 'success');
    expect(await badge('?branch=dev')).toBe('success');
    expect(await badge('?ref=refs/heads/dev')).toBe('success');
    expect(await badge('?ref=refs/heads/main')).toBe('error');
    expect(await badge('?ref=refs/tags/v1')).toBe('none');
    expect((await call(h, '/api/badges/octocat/lib/status.svg?branch=')).status).toBe(400);
  });

  it('hides a private repository’s badges from those who may not read it', async () => {
    await push('octocat/secret', 'main');
    for (const path of ['status.svg', 'cc.xml']) {
      expect((await call(h, `/api/badges/octocat/secret/${path}`)).status).toBe(401);
      expect((await call(h, `/api/badges/octocat/nope/${path}`)).status).toBe(404);
      const allowed = await call(h, `/api/badges/octocat/secret/${path}`, { token: reader });
      expect(allowed.status).toBe(200);
    }
    const svg = await call(h, '/api/badges/octocat/secret/status.svg', { token: reader });
    expect(word(svg.text)).toBe('started');
  });
});
