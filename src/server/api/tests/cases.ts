import { z } from 'zod';
import { ConflictError, NotFoundError } from '../../../core/errors.js';
import type { Repo } from '../../../core/repo.js';
import type { TestCase, TestReportStore } from '../../../core/test-report.js';
import { FLAKY_WINDOW_MS } from '../../tests/recorder.js';
import { ordinal, RepoParams } from '../params.js';
import { REPO_ADMIN, REPO_READ, REPO_WRITE, route, type ApiRoute } from '../route.js';
import { quarantineChangeJson, testCaseJson, testHistoryJson, testSettingsJson } from './json.js';
import {
  flakyTestSchema,
  testCaseDetailSchema,
  testCaseSchema,
  testHistorySchema,
  testSettingsSchema,
} from './schemas.js';

export interface TestCaseRouteDeps {
  readonly tests: Pick<
    TestReportStore,
    | 'findCase'
    | 'history'
    | 'flaky'
    | 'quarantined'
    | 'setQuarantine'
    | 'quarantineLog'
    | 'settings'
    | 'setSettings'
  >;
  readonly now?: () => number;
}

/** Results in a test's history (the strip of its last results). */
const HISTORY = 50;
/** Results looked through for a flaky test's evidence. */
const EVIDENCE_RESULTS = 200;

const CaseParams = RepoParams.extend({ id: ordinal });
const SettingsBody = z
  .object({ quarantine: z.boolean().describe('whether quarantined tests’ failures leave their steps green') })
  .strict();
const QuarantineBody = z
  .object({
    quarantined: z.boolean().describe('true quarantines the test, false lifts its quarantine'),
    comment: z.string().max(1000).default('').describe('why, kept with the change'),
  })
  .strict();

/**
 * A repository's tests (docs/test-reports.md): one test with its quarantine log, its history, the
 * flaky ones with their evidence, the quarantined ones; and quarantining one (write access: the
 * same people who could change the test itself), every change recorded with who made it, once an
 * admin turned quarantine on for the repository (it is opt-in).
 */
export function testCaseRoutes(deps: TestCaseRouteDeps): ApiRoute[] {
  const now = () => (deps.now ?? Date.now)();
  const find = async (repo: Repo, id: number): Promise<TestCase> => {
    const testCase = await deps.tests.findCase(id);
    if (testCase === undefined || testCase.repoId !== repo.id) throw new NotFoundError(`test ${id}`);
    return testCase;
  };
  const tag = 'tests';
  return [
    route({
      method: 'GET',
      path: '/api/repos/:owner/:name/tests/flaky',
      access: REPO_READ,
      tag,
      summary: 'The repository’s tests seen flaky in the last 14 days, with the evidence',
      params: RepoParams,
      response: { schema: z.array(flakyTestSchema), description: 'most recently seen first' },
      async handler({ repo }) {
        const at = now();
        const since = at - FLAKY_WINDOW_MS;
        const flaky = await deps.tests.flaky(repo.id, since, 200);
        return Promise.all(
          flaky.map(async (testCase) => ({
            ...testCaseJson(testCase, at),
            evidence: evidenceOf(await deps.tests.history(testCase.id, EVIDENCE_RESULTS), since),
          })),
        );
      },
    }),
    route({
      method: 'GET',
      path: '/api/repos/:owner/:name/tests/settings',
      access: REPO_READ,
      tag,
      summary: 'The repository’s test settings (quarantine is opt-in)',
      params: RepoParams,
      response: { schema: testSettingsSchema, description: 'the settings' },
      handler: async ({ repo }) => testSettingsJson(await deps.tests.settings(repo.id)),
    }),
    route({
      method: 'PATCH',
      path: '/api/repos/:owner/:name/tests/settings',
      access: REPO_ADMIN,
      tag,
      summary: 'Turns quarantine on or off for the repository (admins)',
      params: RepoParams,
      body: SettingsBody,
      response: { schema: testSettingsSchema, description: 'the settings after the change' },
      async handler({ repo, body, principal }) {
        await deps.tests.setSettings(repo.id, {
          quarantine: body.quarantine,
          login: principal.user.login,
          updated: now(),
        });
        return testSettingsJson(await deps.tests.settings(repo.id));
      },
    }),
    route({
      method: 'GET',
      path: '/api/repos/:owner/:name/tests/quarantined',
      access: REPO_READ,
      tag,
      summary: 'The repository’s quarantined tests',
      params: RepoParams,
      response: { schema: z.array(testCaseSchema), description: 'by suite and name' },
      handler: async ({ repo }) => (await deps.tests.quarantined(repo.id)).map((c) => testCaseJson(c, now())),
    }),
    route({
      method: 'GET',
      path: '/api/repos/:owner/:name/tests/:id',
      access: REPO_READ,
      tag,
      summary: 'One test, with who quarantined it or lifted it, when and why',
      params: CaseParams,
      response: { schema: testCaseDetailSchema, description: 'the test' },
      async handler({ repo, params }) {
        const testCase = await find(repo, params.id);
        const log = await deps.tests.quarantineLog(testCase.id);
        return { ...testCaseJson(testCase, now()), quarantine_log: log.map(quarantineChangeJson) };
      },
    }),
    route({
      method: 'GET',
      path: '/api/repos/:owner/:name/tests/:id/history',
      access: REPO_READ,
      tag,
      summary: `The test’s last ${HISTORY} results, newest first`,
      params: CaseParams,
      response: { schema: z.array(testHistorySchema), description: 'newest first' },
      async handler({ repo, params }) {
        const testCase = await find(repo, params.id);
        return (await deps.tests.history(testCase.id, HISTORY)).map(testHistoryJson);
      },
    }),
    route({
      method: 'PATCH',
      path: '/api/repos/:owner/:name/tests/:id',
      access: REPO_WRITE,
      tag,
      summary: 'Quarantines a test or lifts its quarantine, recording who and why',
      params: CaseParams,
      body: QuarantineBody,
      response: { schema: testCaseDetailSchema, description: 'the test after the change' },
      async handler({ repo, params, body, principal }) {
        const testCase = await find(repo, params.id);
        if (body.quarantined && !(await deps.tests.settings(repo.id)).quarantine)
          throw new ConflictError(
            `quarantine is off for ${repo.slug}: an admin of the repository turns it on first ` +
              `(PATCH /api/repos/${repo.slug}/tests/settings {"quarantine": true}, or svc test settings ${repo.slug} --quarantine on)`,
          );
        await deps.tests.setQuarantine({
          caseId: testCase.id,
          quarantined: body.quarantined,
          userId: principal.user.id,
          login: principal.user.login,
          comment: body.comment,
          created: now(),
        });
        const changed = await find(repo, params.id);
        const log = await deps.tests.quarantineLog(testCase.id);
        return { ...testCaseJson(changed, now()), quarantine_log: log.map(quarantineChangeJson) };
      },
    }),
  ];
}

/** The commits a test both failed and passed on since `since`, with those results. */
function evidenceOf(
  history: Awaited<ReturnType<TestReportStore['history']>>,
  since: number,
): { commit: string; results: Record<string, unknown>[] }[] {
  const byCommit = new Map<string, typeof history>();
  for (const entry of history) {
    if (entry.created < since || entry.status === 'skipped' || entry.commit === '') continue;
    byCommit.set(entry.commit, [...(byCommit.get(entry.commit) ?? []), entry]);
  }
  const evidence = [];
  for (const [commit, entries] of byCommit) {
    const failed = entries.some((e) => e.status === 'failed' || e.status === 'error');
    if (!failed || !entries.some((e) => e.status === 'passed')) continue;
    evidence.push({
      commit,
      results: entries.map((e) => ({
        build: e.buildNumber,
        attempt: e.attempt,
        status: e.status,
        created: Math.floor(e.created / 1000),
      })),
    });
  }
  return evidence;
}
