import { z } from 'zod';
import { NotFoundError } from '../../../core/errors.js';
import type { InsightStore } from '../../../core/insights.js';
import type { RepoStore } from '../../../core/repo.js';
import type { TestReportStore } from '../../../core/test-report.js';
import { insightReport, type Range } from '../../insights/report.js';
import { RepoParams } from '../params.js';
import { REPO_READ, route, USER, type ApiRoute } from '../route.js';
import { insightsSchema } from './schemas.js';

export interface InsightRouteDeps {
  readonly insights: Pick<InsightStore, 'buildDays' | 'stepDays' | 'testTotals' | 'runnerDays' | 'cacheDays'>;
  readonly tests: Pick<TestReportStore, 'findCase'>;
  readonly repos: Pick<RepoStore, 'listUser'>;
  readonly now?: () => number;
}

const RangeQuery = z.object({
  days: z
    .enum(['7', '30', '90'])
    .default('30')
    .transform((days) => Number(days) as Range)
    .describe('the range: the last 7, 30 or 90 days (default 30)'),
});

/**
 * Build insights (docs/insights.md) from the daily rollups: `GET /api/insights/repos/{owner}/{name}`
 * for a repository (its read rule), `GET /api/insights/orgs/{org}` for the repositories of an
 * organisation — those of them the caller may read, and only those.
 */
export function insightRoutes(deps: InsightRouteDeps): ApiRoute[] {
  const now = () => (deps.now ?? Date.now)();
  return [
    route({
      method: 'GET',
      path: '/api/insights/repos/:owner/:name',
      access: REPO_READ,
      tag: 'insights',
      summary: 'A repository’s build insights over 7, 30 or 90 days',
      params: RepoParams,
      query: RangeQuery,
      response: { schema: insightsSchema, description: 'the insights' },
      handler: async ({ repo, query }) => insightReport(deps, [repo.id], query.days, now()),
    }),
    route({
      method: 'GET',
      path: '/api/insights/orgs/:org',
      access: USER,
      tag: 'insights',
      summary: 'The build insights of an organisation’s repositories the caller may read',
      params: z.object({ org: z.string().min(1).max(255) }),
      query: RangeQuery,
      response: { schema: insightsSchema, description: 'the insights' },
      async handler({ principal, params, query }) {
        const readable = (await deps.repos.listUser(principal.user.id)).filter(
          (entry) => entry.repo.namespace === params.org && entry.perm.read && entry.repo.active,
        );
        if (readable.length === 0) throw new NotFoundError(`repositories of ${params.org} that you may read`);
        return insightReport(
          deps,
          readable.map((entry) => entry.repo.id),
          query.days,
          now(),
        );
      },
    }),
  ];
}
