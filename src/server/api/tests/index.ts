import type { ApiRoute } from '../route.js';
import { buildTestsRoute, type BuildTestsDeps } from './build-tests.js';
import { testCaseRoutes, type TestCaseRouteDeps } from './cases.js';

/** Test reports through the API (docs/test-reports.md): a build's tests, and the repository's. */
export function testRoutes(deps: BuildTestsDeps & TestCaseRouteDeps): ApiRoute[] {
  return [buildTestsRoute(deps), ...testCaseRoutes(deps)];
}
