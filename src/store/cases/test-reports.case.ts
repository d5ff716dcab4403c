import { describe, expect, it } from 'vitest';
import type { Stage } from '../../core/stage.js';
import { testKey, type NewTestResult, type TestStatus } from '../../core/test-report.js';
import { newBuild, newRepo, newStage, unique, useStore, type OpenFreshStore } from './fixtures.case.js';

const T = 1_700_000_000_000;

interface Built {
  repoId: number;
  buildId: number;
  number: number;
  stage: Stage;
}

/** TestReportStore: cases by name, results per step attempt, counts, history, flaky evidence, quarantine. */
export function testReportsContract(open: OpenFreshStore): void {
  describe('test reports', () => {
    const store = useStore(open);
    const build = async (repoId?: number, commit = 'c0ffee'): Promise<Built> => {
      const repo = repoId ?? (await store().repos.create(newRepo())).id;
      const created = await store().builds.create(newBuild(repo, { after: commit }), [newStage(1, 1)]);
      const [stage] = created.stages;
      if (stage === undefined) throw new Error('no stage');
      return { repoId: repo, buildId: created.build.id, number: created.build.number, stage };
    };
    const result = (
      built: Built,
      caseId: number,
      status: TestStatus,
      overrides: Partial<NewTestResult> = {},
    ): NewTestResult => ({
      caseId,
      repoId: built.repoId,
      buildId: built.buildId,
      stageId: built.stage.id,
      stepId: built.stage.id * 10,
      attempt: 1,
      status,
      durationMs: 12,
      message: status === 'failed' ? 'expected 1, got 2' : '',
      output: '',
      file: 'src/a.test.ts',
      isNew: false,
      quarantined: false,
      commit: 'c0ffee',
      created: T,
      ...overrides,
    });

    it('creates a repository’s cases once, finds them again by suite and name, exactly', async () => {
      const repoId = (await store().repos.create(newRepo())).id;
      const long = 'x'.repeat(5000);
      const names = [
        { suite: 'pkg/a', name: 'TestOne' },
        { suite: 'pkg/a', name: 'testone' },
        { suite: 'pkg/b', name: long },
        { suite: 'ünï', name: 'a test, with "quotes"' },
      ];
      const first = await store().testReports.cases(repoId, names);
      expect(first.size).toBe(4);
      const again = await store().testReports.cases(repoId, [...names, { suite: 'pkg/c', name: 'New' }]);
      expect(again.size).toBe(5);
      for (const { suite, name } of names)
        expect(again.get(testKey(suite, name))?.id).toBe(first.get(testKey(suite, name))?.id);
      const found = await store().testReports.findCase(first.get(testKey('pkg/b', long))?.id ?? 0);
      expect(found).toMatchObject({ repoId, suite: 'pkg/b', name: long, quarantined: false, flakySeen: 0 });
      // Another repository's case of the same name is its own.
      const other = (await store().repos.create(newRepo())).id;
      const theirs = await store().testReports.cases(other, names.slice(0, 1));
      expect(theirs.get(testKey('pkg/a', 'TestOne'))?.id).not.toBe(
        first.get(testKey('pkg/a', 'TestOne'))?.id,
      );
    });

    it('creates thousands of cases in one call', async () => {
      const repoId = (await store().repos.create(newRepo())).id;
      const names = Array.from({ length: 2500 }, (_, i) => ({ suite: 'big', name: `test ${i}` }));
      const cases = await store().testReports.cases(repoId, names);
      expect(new Set([...cases.values()].map((c) => c.id)).size).toBe(2500);
    });

    it('replaces an attempt’s results, supersedes earlier attempts, counts and lists the build’s', async () => {
      const built = await build();
      const cases = await store().testReports.cases(built.repoId, [
        { suite: 's', name: 'a' },
        { suite: 's', name: 'b' },
      ]);
      const [a, b] = [cases.get(testKey('s', 'a'))?.id ?? 0, cases.get(testKey('s', 'b'))?.id ?? 0];
      await store().testReports.replaceResults(built.stage.id * 10, 1, [
        result(built, a, 'failed'),
        result(built, b, 'failed', { isNew: true }),
      ]);
      await store().testReports.replaceResults(built.stage.id * 10, 1, [
        result(built, a, 'failed', { quarantined: true }),
        result(built, b, 'failed', { isNew: true }),
      ]);
      expect(await store().testReports.counts(built.buildId)).toEqual({
        passed: 0,
        failed: 2,
        error: 0,
        skipped: 0,
        quarantined: 1,
        new: 1,
      });
      await store().testReports.replaceResults(built.stage.id * 10, 2, [
        result(built, a, 'passed', { attempt: 2 }),
        result(built, b, 'skipped', { attempt: 2 }),
      ]);
      expect(await store().testReports.counts(built.buildId)).toMatchObject({
        passed: 1,
        failed: 0,
        skipped: 1,
      });
      const listed = await store().testReports.listBuild(built.buildId);
      expect(listed.map((r) => [r.name, r.attempt, r.status, r.superseded])).toEqual([
        ['a', 1, 'failed', true],
        ['b', 1, 'failed', true],
        ['a', 2, 'passed', false],
        ['b', 2, 'skipped', false],
      ]);
      expect(listed[0]).toMatchObject({ suite: 's', message: 'expected 1, got 2', quarantined: true });
      expect(await store().testReports.inBuild(built.buildId, [a, b])).toEqual(
        new Map([
          [a, 'passed'],
          [b, 'skipped'],
        ]),
      );
    });

    it('answers a case’s history newest first with build numbers, and its results on a commit', async () => {
      const first = await build(undefined, 'aaa');
      const second = await build(first.repoId, 'aaa');
      const third = await build(first.repoId, 'bbb');
      const id =
        (await store().testReports.cases(first.repoId, [{ suite: 's', name: 't' }])).get(testKey('s', 't'))
          ?.id ?? 0;
      await store().testReports.replaceResults(first.stage.id * 10, 1, [
        result(first, id, 'failed', { commit: 'aaa' }),
      ]);
      await store().testReports.replaceResults(second.stage.id * 10, 1, [
        result(second, id, 'passed', { commit: 'aaa', created: T + 1000 }),
      ]);
      await store().testReports.replaceResults(third.stage.id * 10, 1, [
        result(third, id, 'passed', { commit: 'bbb' }),
      ]);
      const history = await store().testReports.history(id, 2);
      expect(history.map((h) => [h.buildNumber, h.status])).toEqual([
        [third.number, 'passed'],
        [second.number, 'passed'],
      ]);
      const onCommit = await store().testReports.onCommit(first.repoId, 'aaa', [id], T);
      expect(onCommit.map((e) => [e.buildNumber, e.status])).toEqual([
        [first.number, 'failed'],
        [second.number, 'passed'],
      ]);
      expect(await store().testReports.onCommit(first.repoId, 'aaa', [id], T + 1)).toHaveLength(1);
      expect(await store().testReports.onCommit(first.repoId, 'ccc', [id], 0)).toEqual([]);
    });

    it('marks cases flaky and lists them most recently seen first', async () => {
      const repoId = (await store().repos.create(newRepo())).id;
      const cases = await store().testReports.cases(repoId, [
        { suite: 's', name: 'old' },
        { suite: 's', name: 'recent' },
        { suite: 's', name: 'steady' },
      ]);
      const id = (name: string) => cases.get(testKey('s', name))?.id ?? 0;
      await store().testReports.markFlaky([id('old')], T);
      await store().testReports.markFlaky([id('recent')], T + 5000);
      expect((await store().testReports.flaky(repoId, T - 1, 10)).map((c) => c.name)).toEqual([
        'recent',
        'old',
      ]);
      expect((await store().testReports.flaky(repoId, T + 1, 10)).map((c) => c.name)).toEqual(['recent']);
      expect(await store().testReports.flaky(repoId, 0, 1)).toHaveLength(1);
    });

    it('quarantines a case and lifts it, recording each change once with who and why', async () => {
      const repoId = (await store().repos.create(newRepo())).id;
      const caseId =
        (await store().testReports.cases(repoId, [{ suite: 's', name: unique('t') }])).values().next().value
          ?.id ?? 0;
      const change = { caseId, userId: 7, login: 'octocat', comment: 'flaky on arm', created: T };
      expect(await store().testReports.setQuarantine({ ...change, quarantined: true })).toBe(true);
      expect(await store().testReports.setQuarantine({ ...change, quarantined: true })).toBe(false);
      expect((await store().testReports.quarantined(repoId)).map((c) => c.id)).toEqual([caseId]);
      expect(
        await store().testReports.setQuarantine({
          ...change,
          quarantined: false,
          comment: 'fixed',
          created: T + 1,
        }),
      ).toBe(true);
      expect(await store().testReports.quarantined(repoId)).toEqual([]);
      const log = await store().testReports.quarantineLog(caseId);
      expect(log.map((c) => [c.quarantined, c.login, c.comment, c.repoId])).toEqual([
        [false, 'octocat', 'fixed', repoId],
        [true, 'octocat', 'flaky on arm', repoId],
      ]);
      expect(
        await store().testReports.setQuarantine({ ...change, caseId: 987654321, quarantined: true }),
      ).toBe(false);
    });

    it('keeps a repository’s test settings: quarantine off until turned on', async () => {
      const repoId = (await store().repos.create(newRepo())).id;
      expect(await store().testReports.settings(repoId)).toEqual({
        quarantine: false,
        login: '',
        updated: 0,
      });
      const on = { quarantine: true, login: 'octocat', updated: T };
      await store().testReports.setSettings(repoId, on);
      await store().testReports.setSettings(repoId, on);
      expect(await store().testReports.settings(repoId)).toEqual(on);
      await store().testReports.setSettings(repoId, { quarantine: false, login: 'hubot', updated: T + 1 });
      expect(await store().testReports.settings(repoId)).toEqual({
        quarantine: false,
        login: 'hubot',
        updated: T + 1,
      });
    });

    it('lets results go with their build, and cases with their repository', async () => {
      const built = await build();
      const id =
        (await store().testReports.cases(built.repoId, [{ suite: 's', name: 't' }])).get(testKey('s', 't'))
          ?.id ?? 0;
      await store().testReports.replaceResults(built.stage.id * 10, 1, [result(built, id, 'passed')]);
      await store().repos.delete(built.repoId);
      expect(await store().testReports.findCase(id)).toBeUndefined();
      expect(await store().testReports.listBuild(built.buildId)).toEqual([]);
    });
  });
}
