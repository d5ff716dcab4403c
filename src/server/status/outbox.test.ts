import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SvcError } from '../../core/errors.js';
import type { ScmStatus } from '../../core/scm.js';
import { ScmRateLimitError } from '../../scm/errors.js';
import { newBuild } from '../../store/cases/fixtures.case.js';
import { githubProvider, triggerFixture, type TriggerFixture } from '../trigger/testing.case.js';
import { StatusOutboxLoop } from './outbox-loop.js';
import { FIRST_RETRY_MS, nextAttemptAfter, StatusPoster } from './poster.js';

const status = (state: ScmStatus['state']): ScmStatus => ({
  state,
  context: 'continuous-integration/svc',
  description: `Build is ${state}`,
  targetUrl: 'https://ci.example.com/octocat/app/1',
  ref: 'refs/heads/main',
});

/** The poster and the outbox loop over SQLite and the GitHub double, the double failing as told. */
describe('commit statuses kept for later', () => {
  let f: TriggerFixture;
  let poster: StatusPoster;
  let clock = 1_000_000;
  const logger = pino({ level: 'silent' });

  beforeAll(async () => {
    f = await triggerFixture();
    poster = new StatusPoster({
      provider: githubProvider(f.github),
      users: f.store.users,
      keep: { outbox: f.store.statusOutbox, repos: f.store.repos },
      logger,
      now: () => clock,
    });
  });
  afterAll(() => f.close());

  async function commit(): Promise<{ sha: string; buildId: number }> {
    const sha = f.github.commit('octocat/app', 'main', { 'a.txt': String(Math.random()) });
    const { build } = await f.store.builds.create({ ...newBuild(f.repo.id), after: sha }, []);
    return { sha, buildId: build.id };
  }
  const statuses = (sha: string) => f.github.statuses('octocat/app', sha).map((s) => s.description);

  it('keeps a status the provider fails, lets a newer one replace it, and posts only that one later', async () => {
    const { sha, buildId } = await commit();
    f.github.fail({ method: 'POST', path: '/statuses/', answer: 503 });
    const target = { repo: f.repo, buildId, commit: sha };
    expect(await poster.post({ ...target, status: status('running') })).toMatchObject({ kind: 'kept' });
    expect(await poster.post({ ...target, status: status('success') })).toMatchObject({ kind: 'kept' });
    const kept = await f.store.statusOutbox.list();
    expect(kept).toMatchObject([{ commit: sha, status: { state: 'success' }, attempts: 1 }]);
    expect(kept[0]?.nextAttempt).toBe(clock + FIRST_RETRY_MS);

    const loop = new StatusOutboxLoop({ outbox: f.store.statusOutbox, poster, logger, now: () => clock });
    // Not due yet: nothing is tried.
    const hits = f.github.faultHits().length;
    await loop.pass();
    expect(f.github.faultHits().length).toBe(hits);
    // Due while the provider still fails: one more attempt, a longer wait, and the loop pauses.
    clock += FIRST_RETRY_MS;
    await loop.pass();
    expect(await f.store.statusOutbox.list()).toMatchObject([
      { attempts: 2, nextAttempt: clock + 2 * FIRST_RETRY_MS },
    ]);
    f.github.recover();
    clock += 2 * FIRST_RETRY_MS;
    await loop.pass();
    expect(statuses(sha)).toEqual(['Build is success']);
    expect(await f.store.statusOutbox.list()).toEqual([]);
  });

  it('removes an unsent older state once a newer one is posted directly', async () => {
    const { sha, buildId } = await commit();
    f.github.fail({ method: 'POST', path: '/statuses/', answer: 502, times: 3 });
    const target = { repo: f.repo, buildId, commit: sha };
    expect(await poster.post({ ...target, status: status('running') })).toMatchObject({ kind: 'kept' });
    expect(await poster.post({ ...target, status: status('failure') })).toEqual({ kind: 'posted' });
    expect(await f.store.statusOutbox.list()).toEqual([]);
    expect(statuses(sha)).toEqual(['Build is failure']);
  });

  it('writes a status to the outbox before posting it, so a server stopped mid-post loses nothing', async () => {
    const { sha, buildId } = await commit();
    const github = githubProvider(f.github);
    let during: unknown[] = [];
    const watching = new StatusPoster({
      provider: {
        async setStatus(...args: Parameters<typeof github.setStatus>) {
          during = await f.store.statusOutbox.list();
          return github.setStatus(...args);
        },
      },
      users: f.store.users,
      keep: { outbox: f.store.statusOutbox, repos: f.store.repos },
      logger,
      now: () => clock,
    });
    expect(await watching.post({ repo: f.repo, buildId, commit: sha, status: status('success') })).toEqual({
      kind: 'posted',
    });
    expect(during).toMatchObject([{ commit: sha, attempts: 0, nextAttempt: clock + FIRST_RETRY_MS }]);
    expect(await f.store.statusOutbox.list()).toEqual([]);
  });

  it('drops a status the provider refuses for good, keeping nothing', async () => {
    const { buildId } = await commit();
    const outcome = await poster.post({
      repo: f.repo,
      buildId,
      commit: 'f'.repeat(40),
      status: status('error'),
    });
    expect(outcome).toMatchObject({
      kind: 'dropped',
      reason: expect.stringContaining('No commit found') as unknown,
    });
    expect(await f.store.statusOutbox.list()).toEqual([]);
  });

  it('waits twice as long after each failed attempt, up to 10 minutes, and never before a rate limit resets', () => {
    const down = new SvcError('INTERNAL', 'GitHub POST /statuses: HTTP 503');
    expect([1, 2, 3, 10].map((attempts) => nextAttemptAfter(attempts, down, 0))).toEqual([
      10_000, 20_000, 40_000, 600_000,
    ]);
    const limited = new ScmRateLimitError('GitHub', 'POST /statuses', new Date(900_000));
    expect(nextAttemptAfter(1, limited, 0)).toBe(900_000);
  });
});
