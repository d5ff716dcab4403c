import { createHash } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import {
  testKey,
  type CommitEvidence,
  type NewTestResult,
  type QuarantineChange,
  type TestCase,
  type TestCounts,
  type TestHistoryEntry,
  type TestReportStore,
  type TestResult,
  type TestResultOfCase,
  type TestSettings,
  type TestStatus,
} from '../../core/test-report.js';
import type { Connection, DialectAdapter } from '../dialects/adapter.js';
import type { Tables, TestCaseRow, TestResultRow } from '../tables.js';
import { groups } from './read-batch.js';
import { bool, changed, flag, insertId } from './rows.js';

/** Rows of one multi-row INSERT: 16 columns each, far below every dialect's parameter limit. */
const INSERT_ROWS = 200;

function nameHash(suite: string, name: string): string {
  return createHash('sha256').update(testKey(suite, name)).digest('hex');
}

function toCase(row: Selectable<TestCaseRow>): TestCase {
  return {
    id: Number(row.id),
    repoId: Number(row.repo_id),
    suite: row.suite,
    name: row.name,
    quarantined: bool(row.quarantined),
    flakySeen: Number(row.flaky_seen),
    created: Number(row.created),
  };
}

function toResult(row: Selectable<TestResultRow>): TestResult {
  return {
    id: Number(row.id),
    caseId: Number(row.case_id),
    repoId: Number(row.repo_id),
    buildId: Number(row.build_id),
    stageId: Number(row.stage_id),
    stepId: Number(row.step_id),
    attempt: Number(row.attempt),
    status: row.status as TestStatus,
    durationMs: Number(row.duration_ms),
    message: row.message,
    output: row.output,
    file: row.file,
    isNew: bool(row.is_new),
    quarantined: bool(row.quarantined),
    superseded: bool(row.superseded),
    commit: row.commit_sha,
    created: Number(row.created),
  };
}

/** The `test_cases`, `test_results` and `test_quarantine` tables (migration 022). */
export class SqlTestReportStore implements TestReportStore {
  readonly #db: Kysely<Tables>;
  readonly #adapter: DialectAdapter;

  constructor({ db, adapter }: Connection) {
    this.#db = db;
    this.#adapter = adapter;
  }

  async cases(
    repoId: number,
    names: readonly { suite: string; name: string }[],
  ): Promise<Map<string, TestCase>> {
    const wanted = new Map<string, { suite: string; name: string }>();
    for (const { suite, name } of names) wanted.set(nameHash(suite, name), { suite, name });
    const found = new Map<string, TestCase>();
    const load = async (hashes: readonly string[]): Promise<void> => {
      for (const group of groups(hashes)) {
        const rows = await this.#db
          .selectFrom('test_cases')
          .selectAll()
          .where('repo_id', '=', repoId)
          .where('name_hash', 'in', group)
          .execute();
        for (const row of rows) found.set(row.name_hash, toCase(row));
      }
    };
    await load([...wanted.keys()]);
    const missing = [...wanted.keys()].filter((hash) => !found.has(hash));
    const created = Date.now();
    const row = (hash: string) => {
      const { suite, name } = wanted.get(hash) ?? { suite: '', name: '' };
      return { repo_id: repoId, name_hash: hash, suite, name, quarantined: 0, flaky_seen: 0, created };
    };
    for (let i = 0; i < missing.length; i += INSERT_ROWS) {
      const chunk = missing.slice(i, i + INSERT_ROWS);
      try {
        await this.#db.insertInto('test_cases').values(chunk.map(row)).execute();
      } catch (error) {
        if (!this.#adapter.isUniqueViolation(error)) throw error;
        // Another server created some of them meanwhile: the others one at a time.
        for (const hash of chunk) {
          try {
            await this.#db.insertInto('test_cases').values(row(hash)).execute();
          } catch (again) {
            if (!this.#adapter.isUniqueViolation(again)) throw again;
          }
        }
      }
    }
    if (missing.length > 0) await load(missing);
    const byKey = new Map<string, TestCase>();
    for (const [hash, { suite, name }] of wanted) {
      const testCase = found.get(hash);
      if (testCase !== undefined) byKey.set(testKey(suite, name), testCase);
    }
    return byKey;
  }

  async findCase(id: number): Promise<TestCase | undefined> {
    const row = await this.#db.selectFrom('test_cases').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toCase(row);
  }

  async replaceResults(stepId: number, attempt: number, results: readonly NewTestResult[]): Promise<void> {
    await this.#db.transaction().execute(async (trx) => {
      await trx
        .deleteFrom('test_results')
        .where('step_id', '=', stepId)
        .where('attempt', '=', attempt)
        .execute();
      await trx
        .updateTable('test_results')
        .set({ superseded: 1 })
        .where('step_id', '=', stepId)
        .where('attempt', '<', attempt)
        .execute();
      for (let i = 0; i < results.length; i += INSERT_ROWS) {
        const rows = results.slice(i, i + INSERT_ROWS).map((r) => ({
          case_id: r.caseId,
          repo_id: r.repoId,
          build_id: r.buildId,
          stage_id: r.stageId,
          step_id: r.stepId,
          attempt: r.attempt,
          status: r.status,
          duration_ms: r.durationMs,
          message: r.message,
          output: r.output,
          file: r.file,
          is_new: flag(r.isNew),
          quarantined: flag(r.quarantined),
          superseded: 0,
          commit_sha: r.commit,
          created: r.created,
        }));
        await trx.insertInto('test_results').values(rows).execute();
      }
    });
  }

  async listBuild(buildId: number): Promise<TestResultOfCase[]> {
    const rows = await this.#db
      .selectFrom('test_results')
      .innerJoin('test_cases', 'test_cases.id', 'test_results.case_id')
      .selectAll('test_results')
      .select([
        'test_cases.suite',
        'test_cases.name',
        'test_cases.flaky_seen',
        'test_cases.quarantined as case_quarantined',
      ])
      .where('test_results.build_id', '=', buildId)
      .orderBy('test_results.id')
      .execute();
    return rows.map((row) => ({
      ...toResult(row),
      suite: row.suite,
      name: row.name,
      flakySeen: Number(row.flaky_seen),
      caseQuarantined: bool(row.case_quarantined),
    }));
  }

  async counts(buildId: number): Promise<TestCounts> {
    const rows = await this.#db
      .selectFrom('test_results')
      .select(['status', 'quarantined', 'is_new'])
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('build_id', '=', buildId)
      .where('superseded', '=', 0)
      .groupBy(['status', 'quarantined', 'is_new'])
      .execute();
    const counts: TestCounts = { passed: 0, failed: 0, error: 0, skipped: 0, quarantined: 0, new: 0 };
    for (const row of rows) {
      const n = Number(row.n);
      const status = row.status as TestStatus;
      counts[status] += n;
      const failed = status === 'failed' || status === 'error';
      if (failed && bool(row.quarantined)) counts.quarantined += n;
      if (failed && bool(row.is_new)) counts.new += n;
    }
    return counts;
  }

  async history(caseId: number, limit: number): Promise<TestHistoryEntry[]> {
    const rows = await this.#db
      .selectFrom('test_results')
      .innerJoin('builds', 'builds.id', 'test_results.build_id')
      .selectAll('test_results')
      .select('builds.number as build_number')
      .where('test_results.case_id', '=', caseId)
      .orderBy('test_results.id', 'desc')
      .limit(limit)
      .execute();
    return rows.map((row) => ({ ...toResult(row), buildNumber: Number(row.build_number) }));
  }

  async onCommit(
    repoId: number,
    commit: string,
    caseIds: readonly number[],
    since: number,
  ): Promise<CommitEvidence[]> {
    const evidence: CommitEvidence[] = [];
    for (const group of groups(caseIds)) {
      const rows = await this.#db
        .selectFrom('test_results')
        .innerJoin('builds', 'builds.id', 'test_results.build_id')
        .select([
          'test_results.case_id',
          'test_results.build_id',
          'builds.number',
          'test_results.step_id',
          'test_results.attempt',
          'test_results.status',
          'test_results.created',
        ])
        .where('test_results.case_id', 'in', group)
        .where('test_results.commit_sha', '=', commit)
        .where('test_results.repo_id', '=', repoId)
        .where('test_results.created', '>=', since)
        .orderBy('test_results.id')
        .execute();
      for (const row of rows)
        evidence.push({
          caseId: Number(row.case_id),
          buildId: Number(row.build_id),
          buildNumber: Number(row.number),
          stepId: Number(row.step_id),
          attempt: Number(row.attempt),
          status: row.status as TestStatus,
          created: Number(row.created),
        });
    }
    return evidence;
  }

  async inBuild(buildId: number, caseIds: readonly number[]): Promise<Map<number, TestStatus>> {
    const statuses = new Map<number, TestStatus>();
    for (const group of groups(caseIds)) {
      const rows = await this.#db
        .selectFrom('test_results')
        .select(['case_id', 'status'])
        .where('build_id', '=', buildId)
        .where('case_id', 'in', group)
        .where('superseded', '=', 0)
        .orderBy('id')
        .execute();
      for (const row of rows) statuses.set(Number(row.case_id), row.status as TestStatus);
    }
    return statuses;
  }

  async markFlaky(caseIds: readonly number[], at: number): Promise<void> {
    for (const group of groups(caseIds))
      await this.#db.updateTable('test_cases').set({ flaky_seen: at }).where('id', 'in', group).execute();
  }

  async flaky(repoId: number, since: number, limit: number): Promise<TestCase[]> {
    const rows = await this.#db
      .selectFrom('test_cases')
      .selectAll()
      .where('repo_id', '=', repoId)
      .where('flaky_seen', '>=', Math.max(1, since))
      .orderBy('flaky_seen', 'desc')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map(toCase);
  }

  async setQuarantine(change: Omit<QuarantineChange, 'id' | 'repoId'>): Promise<boolean> {
    return this.#db.transaction().execute(async (trx) => {
      const updated = await trx
        .updateTable('test_cases')
        .set({ quarantined: flag(change.quarantined) })
        .where('id', '=', change.caseId)
        .where('quarantined', '=', flag(!change.quarantined))
        .executeTakeFirst();
      if (changed(updated) === 0) return false;
      const testCase = await trx
        .selectFrom('test_cases')
        .select('repo_id')
        .where('id', '=', change.caseId)
        .executeTakeFirstOrThrow();
      await insertId(
        this.#adapter,
        trx.insertInto('test_quarantine').values({
          case_id: change.caseId,
          repo_id: Number(testCase.repo_id),
          quarantined: flag(change.quarantined),
          user_id: change.userId,
          login: change.login,
          comment: change.comment,
          created: change.created,
        }),
      );
      return true;
    });
  }

  async quarantineLog(caseId: number): Promise<QuarantineChange[]> {
    const rows = await this.#db
      .selectFrom('test_quarantine')
      .selectAll()
      .where('case_id', '=', caseId)
      .orderBy('id', 'desc')
      .execute();
    return rows.map((row) => ({
      id: Number(row.id),
      caseId: Number(row.case_id),
      repoId: Number(row.repo_id),
      quarantined: bool(row.quarantined),
      userId: Number(row.user_id),
      login: row.login,
      comment: row.comment,
      created: Number(row.created),
    }));
  }

  async quarantined(repoId: number): Promise<TestCase[]> {
    const rows = await this.#db
      .selectFrom('test_cases')
      .selectAll()
      .where('repo_id', '=', repoId)
      .where('quarantined', '=', 1)
      .orderBy('suite')
      .orderBy('name')
      .execute();
    return rows.map(toCase);
  }

  async notable(
    buildId: number,
    flakySince: number,
  ): Promise<{ caseId: number; failed: boolean; flaky: boolean }[]> {
    const rows = await this.#db
      .selectFrom('test_results')
      .innerJoin('test_cases', 'test_cases.id', 'test_results.case_id')
      .select(['test_results.case_id', 'test_results.status', 'test_cases.flaky_seen'])
      .where('test_results.build_id', '=', buildId)
      .where('test_results.superseded', '=', 0)
      .where((eb) =>
        eb.or([
          eb('test_results.status', 'in', ['failed', 'error']),
          eb('test_cases.flaky_seen', '>=', Math.max(1, flakySince)),
        ]),
      )
      .orderBy('test_results.id')
      .execute();
    return rows.map((row) => ({
      caseId: Number(row.case_id),
      failed: row.status === 'failed' || row.status === 'error',
      flaky: Number(row.flaky_seen) >= Math.max(1, flakySince),
    }));
  }

  async settings(repoId: number): Promise<TestSettings> {
    const row = await this.#db
      .selectFrom('test_settings')
      .selectAll()
      .where('repo_id', '=', repoId)
      .executeTakeFirst();
    if (row === undefined) return { quarantine: false, login: '', updated: 0 };
    return { quarantine: bool(row.quarantine), login: row.login, updated: Number(row.updated) };
  }

  async setSettings(repoId: number, settings: TestSettings): Promise<void> {
    const values = {
      quarantine: flag(settings.quarantine),
      login: settings.login,
      updated: settings.updated,
    };
    // Insert, else update: an UPDATE of equal values changes no row on MySQL, so its count says nothing.
    try {
      await this.#db
        .insertInto('test_settings')
        .values({ repo_id: repoId, ...values })
        .execute();
    } catch (error) {
      if (!this.#adapter.isUniqueViolation(error)) throw error;
      await this.#db.updateTable('test_settings').set(values).where('repo_id', '=', repoId).execute();
    }
  }
}
