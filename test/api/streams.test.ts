import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Build } from '../../src/core/build.js';
import { call, enable, loginAs, tokenOf } from './client.js';
import { openEventStream, type ReceivedEvent } from './event-stream.js';
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

interface Payload {
  slug: string;
  build: { number: number; status: string; stages: { name: string; status: string }[] };
}

const payload = (event: ReceivedEvent): Payload => JSON.parse(event.data) as Payload;
const isBuild = (slug: string, status: string) => (event: ReceivedEvent) =>
  event.event === 'message' && payload(event).slug === slug && payload(event).build.status === status;

describe('build event streams', () => {
  let h: Harness;
  let reader: string;
  let outsider: string;
  beforeAll(async () => {
    h = await startHarness();
    for (const login of ['octocat', 'reader', 'outsider']) h.github.addUser({ login });
    h.github.addRepo({
      owner: 'octocat',
      name: 'app',
      private: true,
      admins: ['octocat'],
      readers: ['reader'],
    });
    h.github.addRepo({ owner: 'octocat', name: 'hidden', private: true, admins: ['octocat'] });
    h.github.addRepo({ owner: 'octocat', name: 'open', private: false, admins: ['octocat'] });
    const owner = await loginAs(h, 'octocat');
    await enable(h, owner, 'octocat/app');
    await enable(h, owner, 'octocat/hidden');
    await enable(h, owner, 'octocat/open');
    reader = await tokenOf(h, await loginAs(h, 'reader'));
    outsider = await tokenOf(h, await loginAs(h, 'outsider'));
    // svc learns the reader's permissions when it lists its repositories.
    expect((await call(h, '/api/user/repos', { token: reader })).status).toBe(200);
  });
  afterAll(() => h.close());

  async function push(slug: string, n: number): Promise<Build> {
    h.github.commit(slug, 'main', { '.drone.yml': PIPELINE, 'n.txt': String(n) }, `commit ${n}`);
    expect(await h.github.push(slug, 'main', `${h.url}/hook`)).toBe(200);
    const [namespace = '', name = ''] = slug.split('/');
    const repo = await h.store.repos.findSlug(namespace, name);
    return eventually(async () => (await h.store.builds.list(repo?.id ?? 0, { page: 1, perPage: 1 }))[0]);
  }

  it('sends a reader every status change of a build it may read, and nothing of a private repository it may not', async () => {
    const all = await openEventStream(h, '/api/stream', reader);
    const one = await openEventStream(h, '/api/stream/octocat/app', reader);
    expect(all.status).toBe(200);
    expect(all.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(all.comments).toContain('ping');
    try {
      await push('octocat/hidden', 1);
      const build = await push('octocat/app', 1);
      const created = payload(await all.waitFor(isBuild('octocat/app', 'pending')));
      // Drone's payload: the repository as the API shows it, with the build and its stages.
      expect(created).toMatchObject({
        slug: 'octocat/app',
        namespace: 'octocat',
        name: 'app',
        build: { number: build.number, status: 'pending', stages: [{ name: 'build', status: 'pending' }] },
      });
      expect(created).not.toHaveProperty('hook_secret');
      await runStage(h, build, 'success');
      await all.waitFor(isBuild('octocat/app', 'running'));
      const done = payload(await all.waitFor(isBuild('octocat/app', 'success')));
      expect(done.build.stages).toMatchObject([{ name: 'build', status: 'success' }]);
      await one.waitFor(isBuild('octocat/app', 'success'));
      const statuses = (events: ReceivedEvent[]) => events.map((e) => payload(e).build.status);
      expect(statuses(all.events)).toEqual(['pending', 'running', 'success']);
      expect(statuses(one.events)).toEqual(['pending', 'running', 'success']);
      // The hidden repository's build came first: the stream would have shown it by now.
      expect(all.events.every((e) => payload(e).slug === 'octocat/app')).toBe(true);
    } finally {
      all.close();
      one.close();
    }
    await eventually(() => (h.buildEvents.size === 0 ? true : undefined));
  });

  it('lets a repository’s stream be opened only by those who may read it', async () => {
    expect((await call(h, '/api/stream')).status).toBe(401);
    expect((await call(h, '/api/stream/octocat/hidden', { token: reader })).status).toBe(404);
    expect((await call(h, '/api/stream/octocat/app', { token: outsider })).status).toBe(404);
    expect((await call(h, '/api/stream/octocat/app')).status).toBe(401);
  });

  it('sends an outsider the events of public repositories only', async () => {
    const stream = await openEventStream(h, '/api/stream', outsider);
    try {
      await push('octocat/app', 2);
      // Events reach a stream in order: once the public build's event is there, the private one was judged.
      await push('octocat/open', 1);
      await stream.waitFor(isBuild('octocat/open', 'pending'));
      expect(stream.events.map((e) => payload(e).slug)).toEqual(['octocat/open']);
    } finally {
      stream.close();
    }
  });

  it('ends open streams when the server closes', async () => {
    const own = await startHarness();
    own.github.addUser({ login: 'octocat' });
    const token = await tokenOf(own, await loginAs(own, 'octocat'));
    const stream = await openEventStream(own, '/api/stream', token);
    expect(stream.status).toBe(200);
    await own.close();
    await stream.waitForEnd();
    expect(stream.events.at(-1)).toEqual({ event: 'error', data: 'eof' });
  });
});
