/*
 * Rights do not outlive what the provider says (issue 30, fault 3): event streams let go of a
 * viewer whose account was deactivated or whose right to a private repository was taken, and the
 * activity feed applies the same refresh window as every other request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Repo } from '../../src/core/repo.js';
import { call, enable, loginAs, tokenOf } from './client.js';
import { openEventStream } from './event-stream.js';
import { eventually, startHarness, type Harness } from './harness.js';

const PIPELINE = `kind: pipeline
type: docker
name: build
steps:
- name: test
  image: busybox
  commands: [echo ok]
`;

/** Past the refresh window (an hour): the next request asks the provider again. */
const STALE = 2 * 60 * 60_000;

describe('rights that the provider took back, or an account that was deactivated', () => {
  let h: Harness;
  let repo: Repo;
  let n = 0;
  const tokens: Record<string, string> = {};
  beforeAll(async () => {
    h = await startHarness({ streamRecheckMs: 200 });
    for (const login of ['octocat', 'reader', 'former', 'quitter']) h.github.addUser({ login });
    h.github.addRepo({
      owner: 'octocat',
      name: 'app',
      private: true,
      admins: ['octocat'],
      readers: ['reader', 'former', 'quitter'],
    });
    const owner = await loginAs(h, 'octocat');
    await enable(h, owner, 'octocat/app');
    for (const login of ['reader', 'former', 'quitter']) {
      tokens[login] = await tokenOf(h, await loginAs(h, login));
      expect((await call(h, '/api/user/repos', { token: tokens[login] })).status).toBe(200);
    }
    repo = (await h.store.repos.findSlug('octocat', 'app'))!;
  });
  afterAll(() => h.close());

  async function push(): Promise<number> {
    n += 1;
    h.github.commit('octocat/app', 'main', { '.drone.yml': PIPELINE, 'n.txt': String(n) }, `commit ${n}`);
    expect(await h.github.push('octocat/app', 'main', `${h.url}/hook`)).toBe(200);
    return n;
  }

  /** The provider no longer lets `login` in, and svc's stored rights are past the refresh window. */
  async function takeRights(login: string): Promise<void> {
    h.github.removeCollaborator('octocat/app', login);
    const user = await h.store.users.findLogin(login);
    await h.store.perms.upsert({
      userId: user!.id,
      repoId: repo.id,
      read: true,
      write: false,
      admin: false,
      synced: Date.now() - STALE,
    });
  }

  it('leaves a private repository’s builds out of the activity feed once the provider refuses them', async () => {
    await push();
    const feed = async (login: string) =>
      ((await call(h, '/api/user/builds', { token: tokens[login] })).json as { slug: string }[]).map(
        (r) => r.slug,
      );
    expect(await feed('former')).toContain('octocat/app');
    await takeRights('former');
    expect(await feed('former')).toEqual([]);
    expect(await feed('reader')).toContain('octocat/app');
  });

  it('ends a repository’s event stream when its viewer’s account is deactivated', async () => {
    const stream = await openEventStream(h, '/api/stream/octocat/app', tokens.quitter);
    expect(stream.status).toBe(200);
    const user = await h.store.users.findLogin('quitter');
    await h.store.users.update({ ...user!, active: false });
    await stream.waitForEnd(3_000);
  });

  it('stops sending a private repository’s events to a viewer whose right was taken', async () => {
    const all = await openEventStream(h, '/api/stream', tokens.reader);
    const one = await openEventStream(h, '/api/stream/octocat/app', tokens.reader);
    await push();
    await all.waitFor((event) => event.event === 'message');
    await one.waitFor((event) => event.event === 'message');
    await takeRights('reader');
    await new Promise((resolve) => setTimeout(resolve, 400));
    const [before, beforeOne] = [all.events.length, one.events.length];
    const number = await push();
    // The build was made (and announced to whoever may read it); this viewer hears nothing of it.
    await eventually(async () => (await h.store.builds.findNumber(repo.id, number)) ?? undefined);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(all.events.slice(before)).toEqual([]);
    expect(one.events.slice(beforeOne)).toEqual([]);
    all.close();
    one.close();
  });
});
