import type { ApiRoute } from '../route.js';
import { orgSecretRoutes, type OrgSecretDeps } from './org.js';
import { repoSecretRoutes } from './repo.js';

/** Repository and organization secrets (docs/api.md "Secrets"). */
export function secretRoutes(deps: OrgSecretDeps): ApiRoute[] {
  return [...repoSecretRoutes(deps), ...orgSecretRoutes(deps)];
}
