import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import * as tar from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../core/store.js';
import { testDialects } from '../../../test/support/databases.js';
import { DiskBlobStore } from '../../store/blobs/disk-blobs.js';
import { newBuild, newRepo, newStage } from '../../store/cases/fixtures.case.js';
import { openStore } from '../../store/index.js';
import { ArtifactService, type ArtifactSource } from '../artifacts/service.js';
import { FLAKY_WINDOW_MS, TestRecorder } from './recorder.js';

const DAY = 86_400_000;
const fixture = (name: string) =>
  readFileSync(new URL(`../../../test/fixtures/reports/${name}`, import.meta.url), 'utf8');

/** A JUnit report of tests named by their status: `{ a: 'passed', b: 'failed' }`. */
function junit(tests: Record<string, 'passed' | 'failed' | 'skipped'>): string {
  const cases = Object.entries(tests).map(([name, status]) => {
    if (status === 'failed')
      return `<testcase classname="unit" name="${name}" time="0.25"><failure message="${name} broke">at ${name}.ts:3</failure></testcase>`;
    if (status === 'skipped') return `<testcase classname="unit" name="${name}"><skipped/></testcase>`;
    return `<testcase classname="unit" name="${name}" time="0.5"/>`;
  });
  return `<?xml version="1.0"?>\n<testsuite name="unit">\n${cases.join('\n')}\n</testsuite>\n`;
}

function tarOf(files: Record<string, string | Buffer>): Readable {
  const pack = tar.pack();
  for (const [name, content] of Object.entries(files)) pack.entry({ name, mode: 0o644 }, content);
  pack.finalize();
  return Readable.from(pack);
}

describe('TestRecorder on SQLite and the server’s disk', () => {
  let store: Store;
  let drop: (() => Promise<void>) | undefined;
  let artifacts: ArtifactService;
  let recorder: TestRecorder;
  let repoId = 0;
  let now = 1_800_000_000_000;

  /** A new build of `repoId` on `commit` (branch main), and its first step as an upload's source. */
  async function build(commit: string, ref = 'refs/heads/main'): Promise<ArtifactSource> {
    const created = await store.builds.create(newBuild(repoId, { after: commit, ref }), [newStage(1, 1)]);
    const stage = created.stages[0];
    if (stage === undefined) throw new Error('no stage');
    const [step] = await store.steps.list(stage.id);
    return { repoId, buildId: created.build.id, stageId: stage.id, stepId: step?.id ?? 0 };
  }

  async function record(source: ArtifactSource, files: Record<string, string | Buffer>, attempt = 1) {
    const artifact = await artifacts.upload(
      source,
      { name: 'reports', expireIn: 0, junit: ['reports/**'] },
      tarOf(files),
    );
    return recorder.record(source, attempt, artifact);
  }

  beforeAll(async () => {
    const sqlite = testDialects()[0];
    if (sqlite === undefined) throw new Error('no SQLite');
    const database = await sqlite.create();
    store = await openStore({ datasource: database.datasource });
    drop = async () => {
      await store.close();
      await database.drop();
    };
    artifacts = new ArtifactService({
      store: store.artifacts,
      blobs: new DiskBlobStore(mkdtempSync(join(tmpdir(), 'svc-reports-'))),
      limits: { maxSize: 200 * 1024 * 1024, maxAge: 0 },
      now: () => now,
    });
    recorder = new TestRecorder({ store, artifacts, now: () => now });
  });
  beforeAll(async () => {
    repoId = (await store.repos.create(newRepo())).id;
  });
  afterAll(async () => drop?.());

  it('records a JUnit report’s tests with their messages, and answers the counts', async () => {
    const source = await build('c1');
    const summary = await record(source, {
      'reports/unit.xml': junit({ a: 'passed', b: 'failed', c: 'failed', d: 'skipped' }),
    });
    expect(summary).toEqual({
      reports: 1,
      passed: 1,
      failed: 2,
      skipped: 1,
      quarantined: 0,
      new: 0,
      flaky: 0,
      problems: [],
    });
    const listed = await store.testReports.listBuild(source.buildId);
    expect(listed.find((r) => r.name === 'b')).toMatchObject({
      suite: 'unit',
      status: 'failed',
      durationMs: 250,
      message: 'b broke',
      commit: 'c1',
      isNew: false,
    });
  });

  it('keeps a failure’s output', async () => {
    const source = await build('c-out');
    await record(source, { 'reports/unit.xml': junit({ b: 'failed' }) });
    expect((await store.testReports.listBuild(source.buildId))[0]?.output).toContain('at b.ts:3');
  });

  it('reads the reports of every tool it knows, told apart by content', async () => {
    const source = await build('c-tools');
    const summary = await record(source, {
      'reports/vitest.xml': fixture('vitest-junit.xml'),
      'reports/pytest.xml': fixture('pytest-junit.xml'),
      'reports/go.json': fixture('go-test.jsonl'),
      'reports/node.tap': fixture('node-test.tap'),
    });
    expect(summary.reports).toBe(4);
    expect(summary.passed + summary.failed + summary.skipped).toBeGreaterThan(10);
    expect(summary.failed).toBeGreaterThan(0);
  });

  it('marks a failure new when the test passed on the branch’s previous build, not on another branch’s', async () => {
    await record(await build('n1'), { 'reports/unit.xml': junit({ keeps: 'passed', breaks: 'passed' }) });
    await record(await build('n2', 'refs/heads/other'), {
      'reports/unit.xml': junit({ keeps: 'failed', breaks: 'failed' }),
    });
    const third = await build('n3');
    const summary = await record(third, { 'reports/unit.xml': junit({ keeps: 'passed', breaks: 'failed' }) });
    expect(summary).toMatchObject({ failed: 1, new: 1 });
    const fourth = await build('n4');
    expect(
      await record(fourth, { 'reports/unit.xml': junit({ keeps: 'passed', breaks: 'failed' }) }),
    ).toMatchObject({
      failed: 1,
      new: 0,
    });
  });

  it('finds a test flaky when it failed and passed on one commit: across builds and across attempts', async () => {
    const first = await build('f1');
    expect(
      await record(first, { 'reports/unit.xml': junit({ shaky: 'failed', steady: 'passed' }) }),
    ).toMatchObject({
      flaky: 0,
    });
    // Sent again, the same attempt's results are replaced, not evidence against themselves.
    expect(
      await record(first, { 'reports/unit.xml': junit({ shaky: 'passed', steady: 'passed' }) }),
    ).toMatchObject({
      flaky: 0,
    });
    const retried = await build('f2');
    await record(retried, { 'reports/unit.xml': junit({ retriedOne: 'failed' }) }, 1);
    expect(await record(retried, { 'reports/unit.xml': junit({ retriedOne: 'passed' }) }, 2)).toMatchObject({
      flaky: 1,
    });
    const restarted = await build('f1');
    now += 1000;
    expect(
      await record(restarted, { 'reports/unit.xml': junit({ shaky: 'failed', steady: 'passed' }) }),
    ).toMatchObject({
      flaky: 1,
    });
    const flaky = await store.testReports.flaky(repoId, now - FLAKY_WINDOW_MS, 10);
    expect(flaky.map((c) => c.name).sort()).toEqual(['retriedOne', 'shaky']);
    // The build's answer is the last attempt's.
    expect(await store.testReports.counts(retried.buildId)).toMatchObject({ passed: 1, failed: 0 });
    // Fifteen days on, the same commit failing and passing is old news.
    now += 15 * DAY;
    const later = await build('f1');
    expect(await record(later, { 'reports/unit.xml': junit({ steady: 'failed' }) })).toMatchObject({
      flaky: 0,
    });
  });

  it('finds a test flaky when its results on different commits keep flipping between passing and failing', async () => {
    const outcomes = ['passed', 'failed', 'passed', 'failed', 'passed'] as const;
    for (const [i, outcome] of outcomes.entries())
      expect(
        await record(await build(`alt${i}`), {
          'reports/unit.xml': junit({ flips: outcome, solid: 'passed' }),
        }),
      ).toMatchObject({
        flaky: 0,
      });
    // The fifth flip: failed after passing, four flips before.
    expect(
      await record(await build('alt5'), { 'reports/unit.xml': junit({ flips: 'failed', solid: 'failed' }) }),
    ).toMatchObject({
      failed: 2,
      flaky: 1,
    });
  });

  it('counts the failures of quarantined tests apart', async () => {
    const source = await build('q1');
    const cases = await store.testReports.cases(repoId, [{ suite: 'unit', name: 'known' }]);
    const caseId = [...cases.values()][0]?.id ?? 0;
    const failing = { 'reports/unit.xml': junit({ known: 'failed', fine: 'passed' }) };
    await store.testReports.setQuarantine({
      caseId,
      quarantined: true,
      userId: 1,
      login: 'octocat',
      comment: 'tracked in #12',
      created: now,
    });
    // Until the repository turns quarantine on, the quarantined test's failure counts in full.
    expect(await record(source, failing)).toMatchObject({ failed: 1, quarantined: 0 });
    await store.testReports.setSettings(repoId, { quarantine: true, login: 'octocat', updated: now });
    expect(await record(source, failing)).toMatchObject({ failed: 1, quarantined: 1 });
    expect(
      (await store.testReports.listBuild(source.buildId)).find((r) => r.name === 'known')?.quarantined,
    ).toBe(true);
  });

  it('says what is wrong with a malformed, hostile or huge report, and keeps the others', async () => {
    const laughs =
      '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><testsuite>&lol2;</testsuite>';
    const huge = Buffer.alloc(50 * 1024 * 1024, 0x20);
    const started = Date.now();
    const summary = await record(await build('bad'), {
      'reports/broken.xml': '<testsuite><testcase name="a"></testsuite>',
      'reports/laughs.xml': laughs,
      'reports/huge.xml': huge,
      'reports/binary.xml': Buffer.from([0xff, 0xfe, 0x00, 0x01]),
      'reports/good.xml': junit({ fine: 'passed' }),
    });
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(summary).toMatchObject({ reports: 5, passed: 1, failed: 0 });
    expect(summary.problems).toHaveLength(4);
    expect(summary.problems.find((p) => p.startsWith('reports/huge.xml'))).toMatch(/50\.0 MiB .*20 MiB/);
    expect(summary.problems.find((p) => p.startsWith('reports/laughs.xml'))).toMatch(/DOCTYPE/);
    expect(summary.problems.find((p) => p.startsWith('reports/broken.xml'))).toMatch(/line 1/);
  });

  it('keeps a report’s NUL characters out of the database', async () => {
    const source = await build('nul');
    const tap = 'TAP version 13\n1..1\nnot ok 1 - has a \u0000 in it\n';
    expect(await record(source, { 'reports/x.tap': tap })).toMatchObject({ failed: 1 });
    const [result] = await store.testReports.listBuild(source.buildId);
    expect(result?.name).toBe('has a \uFFFD in it');
  });
});
