import { z } from 'zod';
import type { BuildStore } from '../../../core/build.js';
import type { StageStore } from '../../../core/stage.js';
import { isTestFailure, type TestReportStore, type TestResultOfCase } from '../../../core/test-report.js';
import { placesOf } from '../json/artifact.js';
import { findBuild } from '../lookup.js';
import { BuildParams } from '../params.js';
import { REPO_READ, route, type ApiRoute } from '../route.js';
import { isFlaky, testResultJson } from './json.js';
import { buildTestsSchema } from './schemas.js';

export interface BuildTestsDeps {
  readonly builds: Pick<BuildStore, 'findNumber'>;
  readonly stages: Pick<StageStore, 'listWithSteps'>;
  readonly tests: Pick<TestReportStore, 'listBuild'>;
  readonly now?: () => number;
}

const BuildTestsQuery = z.object({
  status: z
    .enum(['failed', 'passed', 'skipped', 'quarantined', 'new', 'flaky'])
    .optional()
    .describe(
      'only these: failed (and errored), passed, skipped, quarantined failures, new failures, flaky tests',
    ),
  q: z.string().max(200).optional().describe('only tests whose suite or name contains this, any case'),
  page: z.coerce.number().int().positive().default(1),
  per_page: z.coerce.number().int().min(1).max(1000).default(100).describe('tests per page, at most 1000'),
});

/** Failures (new ones first), then skipped, then passed; by suite and name within. */
function rank(result: TestResultOfCase): number {
  if (isTestFailure(result.status)) return result.isNew ? 0 : 1;
  return result.status === 'skipped' ? 2 : 3;
}

/**
 * GET …/builds/{number}/tests: the build's tests (the last attempt of each step's), counted, with
 * a filter and a search, failures first (docs/test-reports.md).
 */
export function buildTestsRoute(deps: BuildTestsDeps): ApiRoute {
  return route({
    method: 'GET',
    path: '/api/repos/:owner/:name/builds/:number/tests',
    access: REPO_READ,
    tag: 'tests',
    summary: 'The build’s tests from its reports, counted, failures first',
    params: BuildParams,
    query: BuildTestsQuery,
    response: { schema: buildTestsSchema, description: 'the counts and a page of the tests' },
    async handler({ repo, params, query }) {
      const now = (deps.now ?? Date.now)();
      const build = await findBuild(deps.builds, repo.id, params.number);
      const all = (await deps.tests.listBuild(build.id)).filter((result) => !result.superseded);
      const counts = {
        total: all.length,
        passed: 0,
        failed: 0,
        skipped: 0,
        quarantined: 0,
        new: 0,
        flaky: 0,
      };
      for (const result of all) {
        const failed = isTestFailure(result.status);
        if (failed) counts.failed++;
        else if (result.status === 'passed') counts.passed++;
        else counts.skipped++;
        if (failed && result.quarantined) counts.quarantined++;
        if (failed && result.isNew) counts.new++;
        if (isFlaky(result.flakySeen, now)) counts.flaky++;
      }
      const needle = query.q?.toLowerCase() ?? '';
      const matching = all
        .filter((result) => selected(result, query.status, now))
        .filter(
          (result) =>
            needle === '' ||
            result.name.toLowerCase().includes(needle) ||
            result.suite.toLowerCase().includes(needle),
        )
        .sort((a, b) => rank(a) - rank(b) || a.suite.localeCompare(b.suite) || a.name.localeCompare(b.name));
      const start = (query.page - 1) * query.per_page;
      const page = matching.slice(start, start + query.per_page);
      const places = page.length === 0 ? placesOf([]) : placesOf(await deps.stages.listWithSteps(build.id));
      return {
        counts,
        matching: matching.length,
        tests: page.map((result) => testResultJson(result, places, now)),
      };
    },
  });
}

function selected(
  result: TestResultOfCase,
  status: z.output<typeof BuildTestsQuery>['status'],
  now: number,
): boolean {
  const failed = isTestFailure(result.status);
  switch (status) {
    case undefined:
      return true;
    case 'failed':
      return failed;
    case 'passed':
    case 'skipped':
      return result.status === status;
    case 'quarantined':
      return failed && result.quarantined;
    case 'new':
      return failed && result.isNew;
    case 'flaky':
      return isFlaky(result.flakySeen, now);
  }
}
