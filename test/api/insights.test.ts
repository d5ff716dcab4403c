/*
 * Build insights through HTTP (issue 36): builds finished over the runner protocol are counted in
 * the rollups once each; a repository's insights and an organisation's (only the repositories the
 * caller may read) answer every day of the range, percentiles, steps, tests, runners and caches.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Build } from '../../src/core/build.js';
import { dayOf } from '../../src/core/insights.js';
import { call, enable, loginAs, tokenOf } from './client.js';
import { startHarness, type Harness } from './harness.js';
import { BUILD_AND_TEST } from './pipelines.js';
import { runStage } from './runner-flow.js';

interface Insights {
  days: number;
  from: string;
  to: string;
  builds: Record<string, number>;
  daily: { date: string; builds: number; successes: number }[];
  slowest_steps: { name: string; runs: number; failures: number; daily: unknown[] }[];
  failing_tests: { id: number; name: string; failures: number }[];
  runners: { kind: string; stages: number }[];
  caches: { hits: number; misses: number; hit_rate: number };
}

describe('build insights through the API', () => {
  let h: Harness;
  const tokens: Record<string, string> = {};

  async function push(slug: string): Promise<Build> {
    h.github.commit(
      slug,
      'main',
      { '.drone.yml': BUILD_AND_TEST, 'n.txt': String(Math.random()) },
      'a commit',
    );
    expect(await h.github.push(slug, 'main', `${h.url}/hook`)).toBe(200);
    const [owner = '', name = ''] = slug.split('/');
    const repo = await h.store.repos.findSlug(owner, name);
    const [build] = await h.store.builds.list(repo?.id ?? 0, { page: 1, perPage: 1 });
    if (build === undefined) throw new Error(`no build of ${slug}`);
    return build;
  }

  async function finish(build: Build, status: 'success' | 'failure'): Promise<void> {
    // Stage by stage, as they become runnable (after a failure, the dependent one never does).
    for (let number = 1; ; number++) {
      const stage = (await h.store.stages.list(build.id)).find((s) => s.number === number);
      if (stage?.status !== 'pending') return;
      await runStage(h, build, status, number);
    }
  }

  beforeAll(async () => {
    h = await startHarness();
    for (const login of ['octocat', 'reader', 'outsider']) h.github.addUser({ login });
    h.github.addRepo({ owner: 'acme', name: 'api', private: true, admins: ['octocat'], readers: ['reader'] });
    h.github.addRepo({ owner: 'acme', name: 'web', private: true, admins: ['octocat'] });
    for (const login of ['octocat', 'reader', 'outsider']) {
      const session = await loginAs(h, login);
      tokens[login] = await tokenOf(h, session);
      if (login === 'octocat') for (const name of ['api', 'web']) await enable(h, session, `acme/${name}`);
      else expect((await call(h, '/api/user/repos', { token: tokens[login] })).status).toBe(200);
    }
    await finish(await push('acme/api'), 'success');
    await finish(await push('acme/api'), 'failure');
    await finish(await push('acme/web'), 'success');
  });
  afterAll(() => h.close());

  it('counts the repository’s finished builds once each, with every day of the range', async () => {
    const answer = await call(h, '/api/insights/repos/acme/api?days=7', { token: tokens.reader });
    expect(answer.status, answer.text).toBe(200);
    const insights = answer.json as Insights;
    expect(insights.days).toBe(7);
    expect(insights.daily).toHaveLength(7);
    expect(insights.to).toBe(new Date(dayOf(Date.now()) * 86_400_000).toISOString().slice(0, 10));
    expect(insights.builds).toMatchObject({ total: 2, successes: 1, success_rate: 0.5 });
    expect(insights.daily.at(-1)).toMatchObject({ builds: 2, successes: 1 });
    expect(insights.slowest_steps.map((s) => [s.name, s.runs, s.failures])).toEqual([['test', 3, 1]]);
    expect(insights.runners.map((r) => [r.kind, r.stages])).toEqual([['docker', 3]]);
    // A replayed final update counts nothing twice.
    const repo = await h.store.repos.findSlug('acme', 'api');
    const [latest] = await h.store.builds.list(repo?.id ?? 0, { page: 1, perPage: 1 });
    if (latest === undefined || repo === undefined) throw new Error('no build');
    const again = await h.store.insights.record(latest.id, {
      repoId: repo.id,
      day: dayOf(Date.now()),
      succeeded: true,
      durationMs: 1,
      queueMs: 1,
      steps: [],
      stages: [],
      failedTests: [],
      flakyTests: [],
    });
    expect(again).toBe(false);
    expect(
      ((await call(h, '/api/insights/repos/acme/api?days=7', { token: tokens.reader })).json as Insights)
        .builds.total,
    ).toBe(2);
  });

  it('answers an organisation’s insights over the repositories the caller may read, and only those', async () => {
    const all = (await call(h, '/api/insights/orgs/acme?days=30', { token: tokens.octocat }))
      .json as Insights;
    expect([all.days, all.daily.length, all.builds.total]).toEqual([30, 30, 3]);
    const some = (await call(h, '/api/insights/orgs/acme', { token: tokens.reader })).json as Insights;
    expect(some.builds.total).toBe(2);
    expect((await call(h, '/api/insights/orgs/acme', { token: tokens.outsider })).status).toBe(404);
    expect((await call(h, '/api/insights/orgs/acme')).status).toBe(401);
    expect((await call(h, '/api/insights/repos/acme/web', { token: tokens.reader })).status).toBe(404);
    const bad = await call(h, '/api/insights/repos/acme/api?days=14', { token: tokens.octocat });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('days');
  });
});
