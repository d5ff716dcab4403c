import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Build } from '../../src/core/build.js';
import type { Status } from '../../src/core/status.js';
import { enable, loginAs } from './client.js';
import { eventually, startHarness, type Harness } from './harness.js';

const FILE =
  'kind: pipeline\ntype: docker\nname: default\nsteps:\n- name: a\n  image: alpine\n  commands: [true]\n';

/** Enables octocat/<name>, pushes a commit with `file`, and waits until the build was announced. */
async function pushed(h: Harness, name: string, file: string): Promise<{ sha: string; build: Build }> {
  h.github.addRepo({ owner: 'octocat', name, admins: ['octocat'] });
  await enable(h, await loginAs(h, 'octocat'), `octocat/${name}`);
  const sha = h.github.commit(`octocat/${name}`, 'main', { '.drone.yml': file });
  const seen = h.announced.length;
  expect(await h.github.push(`octocat/${name}`, 'main', `${h.url}/hook`)).toBe(200);
  const change = await eventually(() => h.announced[seen]);
  return { sha, build: change.build };
}

describe('commit statuses at the provider', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    h.github.addUser({ login: 'octocat' });
  });
  afterAll(() => h.close());

  it('posts pending for a new build, then each changed state, linking to the build page', async () => {
    const { sha, build } = await pushed(h, 'hello', FILE);
    const repo = await h.store.repos.findSlug('octocat', 'hello');
    if (repo === undefined || h.reporter === undefined) throw new Error('no repository or reporter');
    expect(h.github.statuses('octocat/hello', sha)).toEqual([
      {
        state: 'pending',
        // SVC_STATUS_NAME and the event, as Drone names its statuses.
        context: 'continuous-integration/svc/push',
        description: 'Build is pending',
        target_url: `${h.url}/octocat/hello/1`,
      },
    ]);
    const update = (status: Status) =>
      h.reporter?.buildUpdated({ repo, build: { ...build, status }, stages: [] });
    await update('running');
    await update('running');
    await update('success');
    await update('success');
    const states = h.github.statuses('octocat/hello', sha).map((s) => [s.state, s.description]);
    // GitHub has no running state: the adapter posts it as pending, with the words saying running.
    expect(states).toEqual([
      ['pending', 'Build is pending'],
      ['pending', 'Build is running'],
      ['success', 'Build is passing'],
    ]);
  });

  it('posts error for a build whose file does not lint', async () => {
    const { sha, build } = await pushed(h, 'broken', 'kind: pipeline\nsteps: 3\n');
    expect(build.status).toBe('error');
    expect(h.github.statuses('octocat/broken', sha)).toEqual([
      expect.objectContaining({ state: 'error', description: 'Build is in an error state' }),
    ]);
  });

  it('maps failures and kills to failure, and logs instead of throwing when the provider refuses', async () => {
    const { sha, build } = await pushed(h, 'flaky', FILE);
    const repo = await h.store.repos.findSlug('octocat', 'flaky');
    if (repo === undefined || h.reporter === undefined) throw new Error('no repository or reporter');
    await h.reporter.buildUpdated({ repo, build: { ...build, status: 'killed' }, stages: [] });
    expect(h.github.statuses('octocat/flaky', sha).at(-1)).toMatchObject({
      state: 'failure',
      description: 'Build was killed',
    });
    await expect(
      h.reporter.buildUpdated({
        repo,
        build: { ...build, after: 'f'.repeat(40), status: 'failure' },
        stages: [],
      }),
    ).resolves.toBeUndefined();
  });
});

describe('commit statuses with SVC_STATUS_DISABLED', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ statusDisabled: true });
    h.github.addUser({ login: 'octocat' });
  });
  afterAll(() => h.close());

  it('posts nothing', async () => {
    const { sha, build } = await pushed(h, 'quiet', FILE);
    const repo = await h.store.repos.findSlug('octocat', 'quiet');
    if (repo === undefined) throw new Error('no repository');
    await h.reporter?.buildUpdated({ repo, build: { ...build, status: 'success' }, stages: [] });
    expect(h.github.statuses('octocat/quiet', sha)).toEqual([]);
    expect(h.github.requests().some((request) => request.url.includes('/statuses/'))).toBe(false);
  });
});
