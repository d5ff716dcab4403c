/*
 * Test reports through HTTP (issue 36): a build's tests counted, filtered, searched and paged,
 * failures first; a test's history and quarantine log; the flaky list; and the access rules —
 * readers read, writers quarantine once an admin turned quarantine on, strangers of a private
 * repository see nothing, and a test id of another repository is not found.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testKey, type NewTestResult, type TestStatus } from '../../src/core/test-report.js';
import { stageSource } from './artifacts-support.js';
import { call, enable, loginAs, tokenOf } from './client.js';
import { startHarness, type Harness } from './harness.js';
import { BUILD_AND_TEST } from './pipelines.js';

const BASE = '/api/repos/octocat/hello';

describe('test reports through the API', () => {
  let h: Harness;
  const tokens: Record<string, string> = {};
  const ids: Record<string, number> = {};
  const as = (who: string, path: string, init: { method?: string; body?: unknown } = {}) =>
    call(h, path, { token: tokens[who], ...init });

  beforeAll(async () => {
    h = await startHarness();
    for (const login of ['octocat', 'writer', 'reader', 'outsider']) h.github.addUser({ login });
    h.github.addRepo({
      owner: 'octocat',
      name: 'hello',
      private: true,
      writers: ['writer'],
      readers: ['reader'],
    });
    h.github.addRepo({ owner: 'octocat', name: 'other' });
    for (const login of ['octocat', 'writer', 'reader', 'outsider']) {
      const session = await loginAs(h, login);
      tokens[login] = await tokenOf(h, session);
      if (login === 'octocat')
        for (const name of ['hello', 'other']) await enable(h, session, `octocat/${name}`);
      else expect((await call(h, '/api/user/repos', { token: tokens[login] })).status).toBe(200);
    }
    for (const slug of ['octocat/hello', 'octocat/hello', 'octocat/other']) {
      h.github.commit(
        slug,
        'main',
        { '.drone.yml': BUILD_AND_TEST, 'n.txt': String(Math.random()) },
        'a commit',
      );
      expect(await h.github.push(slug, 'main', `${h.url}/hook`)).toBe(200);
    }
    const seed = async (slug: string, number: number, statuses: Record<string, TestStatus>) => {
      const source = await stageSource(h, slug, number, 2, { number: 1, name: 'unit' });
      const names = Object.keys(statuses).map((name) => ({ suite: 'pkg', name }));
      const cases = await h.store.testReports.cases(source.repoId, names);
      const results: NewTestResult[] = Object.entries(statuses).map(([name, status]) => {
        const caseId = cases.get(testKey('pkg', name))?.id ?? 0;
        ids[`${slug}:${name}`] = caseId;
        return {
          ...source,
          caseId,
          attempt: 1,
          status,
          durationMs: name.length * 10,
          message: status === 'failed' ? `${name} broke` : '',
          output: '',
          file: '',
          isNew: status === 'failed' && name === 'fresh',
          quarantined: false,
          commit: 'abc',
          created: Date.now(),
        };
      });
      await h.store.testReports.replaceResults(source.stepId, 1, results);
    };
    await seed('octocat/hello', 1, { alpha: 'passed', fresh: 'passed', old: 'failed' });
    const many: Record<string, TestStatus> = { fresh: 'failed', old: 'failed', skipme: 'skipped' };
    for (let i = 0; i < 120; i++) many[`case${String(i).padStart(3, '0')}`] = 'passed';
    await seed('octocat/hello', 2, many);
    await seed('octocat/other', 1, { foreign: 'failed' });
    await h.store.testReports.markFlaky([ids['octocat/hello:old'] ?? 0], Date.now());
  });
  afterAll(() => h.close());

  it('counts a build’s tests and lists them failures first (new first), paged, filtered and searched', async () => {
    const page = await as('reader', `${BASE}/builds/2/tests?per_page=5`);
    expect(page.status, page.text).toBe(200);
    const body = page.json as {
      counts: Record<string, number>;
      matching: number;
      tests: { case: { name: string; flaky: boolean }; status: string; new: boolean; message: string }[];
    };
    expect(body.counts).toEqual({
      total: 123,
      passed: 120,
      failed: 2,
      skipped: 1,
      quarantined: 0,
      new: 1,
      flaky: 1,
    });
    expect(body.matching).toBe(123);
    expect(body.tests.map((t) => [t.case.name, t.status])).toEqual([
      ['fresh', 'failed'],
      ['old', 'failed'],
      ['skipme', 'skipped'],
      ['case000', 'passed'],
      ['case001', 'passed'],
    ]);
    expect(body.tests[1]).toMatchObject({ message: 'old broke', case: { flaky: true } });
    const second = (await as('reader', `${BASE}/builds/2/tests?per_page=5&page=2`)).json as typeof body;
    expect(second.tests.map((t) => t.case.name)).toEqual([
      'case002',
      'case003',
      'case004',
      'case005',
      'case006',
    ]);
    const failed = (await as('reader', `${BASE}/builds/2/tests?status=failed`)).json as typeof body;
    expect([failed.matching, failed.counts.total]).toEqual([2, 123]);
    expect(((await as('reader', `${BASE}/builds/2/tests?status=new`)).json as typeof body).matching).toBe(1);
    expect(((await as('reader', `${BASE}/builds/2/tests?status=flaky`)).json as typeof body).matching).toBe(
      1,
    );
    expect(((await as('reader', `${BASE}/builds/2/tests?q=CASE11`)).json as typeof body).matching).toBe(10);
    expect((await as('reader', `${BASE}/builds/2/tests?status=broken`)).status).toBe(400);
    expect((await as('reader', `${BASE}/builds/3/tests`)).status).toBe(404);
  });

  it('answers a test’s history newest first, and the flaky tests with the commits they flipped on', async () => {
    const old = ids['octocat/hello:old'] ?? 0;
    const history = await as('reader', `${BASE}/tests/${old}/history`);
    expect(history.status, history.text).toBe(200);
    expect((history.json as { build: number; status: string }[]).map((e) => [e.build, e.status])).toEqual([
      [2, 'failed'],
      [1, 'failed'],
    ]);
    const flaky = (await as('reader', `${BASE}/tests/flaky`)).json as { name: string; evidence: unknown[] }[];
    // Marked flaky, but its results on commit abc never passed: no evidence of its own here.
    expect(flaky.map((f) => [f.name, f.evidence])).toEqual([['old', []]]);
  });

  it('lets writers quarantine a test once an admin turned quarantine on, recording who and why', async () => {
    const old = ids['octocat/hello:old'] ?? 0;
    const quarantine = { method: 'PATCH', body: { quarantined: true, comment: 'flaky on arm' } };
    const off = await as('writer', `${BASE}/tests/${old}`, quarantine);
    expect(off.status).toBe(409);
    expect(off.json).toMatchObject({ code: 'CONFLICT' });
    expect((off.json as { message: string }).message).toContain('quarantine is off for octocat/hello');
    expect(
      (await as('writer', `${BASE}/tests/settings`, { method: 'PATCH', body: { quarantine: true } })).status,
    ).toBe(403);
    const on = await as('octocat', `${BASE}/tests/settings`, { method: 'PATCH', body: { quarantine: true } });
    expect(on.json).toMatchObject({ quarantine: true, login: 'octocat' });
    expect((await as('reader', `${BASE}/tests/${old}`, quarantine)).status).toBe(403);
    const done = await as('writer', `${BASE}/tests/${old}`, quarantine);
    expect(done.status, done.text).toBe(200);
    expect(done.json).toMatchObject({
      quarantined: true,
      quarantine_log: [{ quarantined: true, login: 'writer', comment: 'flaky on arm' }],
    });
    expect(
      ((await as('reader', `${BASE}/tests/quarantined`)).json as { id: number }[]).map((c) => c.id),
    ).toEqual([old]);
    const lifted = await as('octocat', `${BASE}/tests/${old}`, {
      method: 'PATCH',
      body: { quarantined: false },
    });
    expect((lifted.json as { quarantine_log: unknown[] }).quarantine_log).toHaveLength(2);
    expect(
      (await as('writer', `${BASE}/tests/${old}`, { method: 'PATCH', body: { quarantined: 'yes' } })).status,
    ).toBe(400);
  });

  it('shows nothing of a private repository’s tests to strangers, and no test through another repository', async () => {
    const old = ids['octocat/hello:old'] ?? 0;
    for (const path of [
      `${BASE}/builds/2/tests`,
      `${BASE}/tests/${old}`,
      `${BASE}/tests/${old}/history`,
      `${BASE}/tests/flaky`,
    ]) {
      const answer = await call(h, path, { token: tokens.outsider });
      expect(answer.status, path).toBe(404);
      expect(answer.text).not.toContain('broke');
      expect((await call(h, path)).status, path).toBe(401);
    }
    const foreign = ids['octocat/other:foreign'] ?? 0;
    expect((await as('octocat', `${BASE}/tests/${foreign}`)).status).toBe(404);
    expect((await as('octocat', `/api/repos/octocat/other/tests/${old}/history`)).status).toBe(404);
  });
});
