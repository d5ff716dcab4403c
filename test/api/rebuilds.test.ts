import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Build } from '../../src/core/build.js';
import { call, enable, loginAs, tokenOf } from './client.js';
import { testDialects } from '../support/databases.js';
import { startHarness, type Harness } from './harness.js';
import { LINT_AND_UNIT, runStage } from './runner-flow.js';

// Two independent stages and one after both: a rerun of the failed one must reuse the other's result.
const FILE = `${LINT_AND_UNIT}---
kind: pipeline
type: docker
name: report
depends_on: [lint, unit]
steps:
- name: test
  image: alpine
  commands: [true]
`;

interface WireBuild {
  number: number;
  status: string;
  event: string;
  parent: number;
  trigger: string;
  deploy_to: string;
  params: Record<string, string>;
  stages: { number: number; name: string; status: string; steps?: { name: string; status: string }[] }[];
}

for (const dialect of testDialects()) {
  describe.skipIf(dialect.skip)(`restart, promote, rollback and newest builds on ${dialect.name}`, () => {
    let h: Harness;
    let token: string;
    let readerToken: string;
    let repoId: number;

    beforeAll(async () => {
      h = await startHarness({ dialect });
      h.github.addUser({ login: 'octocat' });
      h.github.addUser({ login: 'writer' });
      h.github.addUser({ login: 'reader' });
      h.github.addRepo({
        owner: 'octocat',
        name: 'app',
        admins: ['octocat'],
        writers: ['writer'],
        readers: ['reader'],
      });
      h.github.commit('octocat/app', 'main', { '.drone.yml': FILE }, 'first');
      await enable(h, await loginAs(h, 'octocat'), 'octocat/app');
      token = await tokenOf(h, await loginAs(h, 'writer'));
      readerToken = await tokenOf(h, await loginAs(h, 'reader'));
      repoId = (await h.store.repos.findSlug('octocat', 'app'))?.id ?? 0;
    });
    afterAll(() => h.close());

    const post = (path: string, as = token) =>
      call(h, `/api/repos/octocat/app/builds${path}`, { method: 'POST', token: as });
    const stored = async (number: number): Promise<Build> => {
      const build = await h.store.builds.findNumber(repoId, number);
      if (build === undefined) throw new Error(`no build ${number}`);
      return build;
    };

    /** A pushed build whose `lint` stage succeeded, `unit` failed, and `report` was skipped. */
    async function failedPush(): Promise<Build> {
      // Each a new commit: the same delivery sent again would be taken as a replay and build nothing.
      h.github.commit('octocat/app', 'main', { 'NOTES.md': randomUUID() }, 'a push that fails');
      expect(await h.github.push('octocat/app', 'main', `${h.url}/hook`)).toBe(200);
      const [latest] = await h.store.builds.list(repoId, { page: 1, perPage: 1 });
      if (latest === undefined) throw new Error('no build');
      await runStage(h, latest, 'success', 1);
      await runStage(h, latest, 'failure', 2);
      const [lintStage] = await h.store.stages.list(latest.id);
      const [lintStep] = await h.store.steps.list(lintStage?.id ?? 0);
      await h.store.logs.create(lintStep?.id ?? 0, [{ pos: 0, out: 'lint passed\n', time: 0 }]);
      const done = await stored(latest.number);
      expect(done.status).toBe('failure');
      return done;
    }

    it('restarts a build for the caller: same commit and event, a new number, parameters merged', async () => {
      const failed = await failedPush();
      const answer = await post(`/${failed.number}?DEPLOY=yes`);
      expect(answer.status).toBe(200);
      const restarted = answer.json as WireBuild;
      expect(restarted).toMatchObject({
        event: 'push',
        status: 'pending',
        parent: failed.number,
        trigger: 'writer',
        after: failed.after,
        ref: failed.ref,
        params: { DEPLOY: 'yes' },
      });
      expect(restarted.number).toBeGreaterThan(failed.number);
      expect(restarted.stages.map((s) => [s.name, s.status])).toEqual([
        ['lint', 'pending'],
        ['unit', 'pending'],
        ['report', 'waiting_on_dependencies'],
      ]);
    });

    it('restarts as a debug build with debug=true (not a build parameter); a plain restart is none', async () => {
      const failed = await failedPush();
      const debug = await post(`/${failed.number}?debug=true`);
      expect(debug.status).toBe(200);
      const number = (debug.json as WireBuild).number;
      expect((await stored(number)).debug).toBe(true);
      expect((debug.json as WireBuild).params).toEqual({});
      const plain = (await post(`/${failed.number}`)).json as WireBuild;
      expect((await stored(plain.number)).debug).toBe(false);
    });

    it('with failed=true reruns only the stages that did not succeed, keeping the others’ results and logs', async () => {
      const failed = await failedPush();
      const answer = await post(`/${failed.number}?failed=true`);
      expect(answer.status).toBe(200);
      const rerun = answer.json as WireBuild;
      expect(rerun.stages.map((s) => [s.name, s.status])).toEqual([
        ['lint', 'success'],
        ['unit', 'pending'],
        ['report', 'waiting_on_dependencies'],
      ]);
      const view = (await call(h, `/api/repos/octocat/app/builds/${rerun.number}`, { token }))
        .json as WireBuild;
      expect(view.stages[0]?.steps).toEqual([expect.objectContaining({ name: 'test', status: 'success' })]);
      const log = await call(h, `/api/repos/octocat/app/builds/${rerun.number}/logs/1/1`, { token });
      expect(log.json).toEqual([expect.objectContaining({ out: 'lint passed\n' })]);
      // The rerun stage passes now: `report` runs, and the build succeeds as a whole.
      const build = await stored(rerun.number);
      await runStage(h, build, 'success', 2);
      await runStage(h, build, 'success', 3);
      expect((await stored(rerun.number)).status).toBe('success');
    });

    it('refuses failed=true for a build that fully succeeded, and a blocked build (400)', async () => {
      const [passed] = await h.store.builds.list(repoId, { page: 1, perPage: 1 });
      expect(passed?.status).toBe('success');
      const again = await post(`/${passed?.number}?failed=true`);
      expect(again.status).toBe(400);
      expect(again.text).toMatch(/every stage of build \d+ succeeded/);
      const blocked = await h.store.builds.update({ ...(passed as Build), status: 'blocked' });
      const refused = await post(`/${blocked.number}`);
      expect(refused.status).toBe(400);
      expect(refused.text).toContain('approve or decline it');
    });

    it('promotes and rolls back to a target: events promote/rollback, DRONE_DEPLOY_TO, parameters', async () => {
      const failed = await failedPush();
      const promoted = await post(`/${failed.number}/promote?target=production&VERSION=1.2`);
      expect(promoted.status).toBe(200);
      expect(promoted.json).toMatchObject({
        event: 'promote',
        deploy_to: 'production',
        parent: failed.number,
        trigger: 'writer',
        params: { VERSION: '1.2' },
      });
      const rolledBack = await post(`/${failed.number}/rollback?target=production`);
      expect(rolledBack.json).toMatchObject({ event: 'rollback', deploy_to: 'production' });
      const deployments = await call(h, '/api/repos/octocat/app/builds/deployments', { token: readerToken });
      expect((deployments.json as WireBuild[]).map((b) => [b.event, b.deploy_to])).toEqual([
        ['rollback', 'production'],
      ]);
      const missing = await post(`/${failed.number}/promote`);
      expect(missing.status).toBe(400);
      expect(missing.text).toContain('target');
    });

    it('refuses readers (403) and unknown builds (404); build parameters must be variable names', async () => {
      expect((await post('/1', readerToken)).status).toBe(403);
      expect((await post('/1/promote?target=x', readerToken)).status).toBe(403);
      expect((await post('/999')).status).toBe(404);
      const bad = await post('/1?1BAD=x');
      expect(bad.status).toBe(400);
      expect(bad.text).toContain('1BAD');
    });

    it('answers the newest build of a branch or ref, per branch and pull request, and takes names off', async () => {
      h.github.commit('octocat/app', 'feature/x', { 'x.txt': 'x' }, 'on a feature');
      expect(await h.github.push('octocat/app', 'feature/x', `${h.url}/hook`)).toBe(200);
      const latest = await call(h, '/api/repos/octocat/app/builds/latest', { token: readerToken });
      expect(latest.status).toBe(200);
      // Drone's rule: the newest build of the default branch's ref, whatever its event (here the rollback).
      const [newest] = await h.store.builds.list(repoId, { page: 1, perPage: 1 }, { ref: 'refs/heads/main' });
      expect(latest.json).toMatchObject({ number: newest?.number, target: 'main' });
      expect((latest.json as WireBuild).stages.length).toBe(3);
      const feature = await call(h, '/api/repos/octocat/app/builds/latest?branch=feature/x', { token });
      expect(feature.json).toMatchObject({ target: 'feature/x', message: 'on a feature' });
      const none = await call(h, '/api/repos/octocat/app/builds/latest?ref=refs/tags/none', { token });
      expect(none.status).toBe(404);
      const branches = async (): Promise<string[]> =>
        (
          (await call(h, '/api/repos/octocat/app/builds/branches', { token })).json as { target: string }[]
        ).map((b) => b.target);
      expect(await branches()).toEqual(['feature/x', 'main']);
      const forbidden = await call(h, '/api/repos/octocat/app/builds/branches/main', {
        method: 'DELETE',
        token: readerToken,
      });
      expect(forbidden.status).toBe(403);
      const deleted = await call(h, '/api/repos/octocat/app/builds/branches/feature%2Fx', {
        method: 'DELETE',
        token,
      });
      expect(deleted.status).toBe(204);
      expect(await branches()).toEqual(['main']);
      expect((await call(h, '/api/repos/octocat/app/builds/pulls', { token })).json).toEqual([]);
    });
  });
}
