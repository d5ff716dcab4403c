import type { ScmTeam } from '../../core/scm.js';
import type { GitLabClient } from './client.js';
import { segment } from './paths.js';
import { groupSchema } from './schemas.js';

/**
 * GitLab's teams are subgroups: `acme/release` is the group of that full path. Named as org/slug,
 * the org is the path's first segment and the slug the rest; matched by the group's id.
 */
function toTeam(group: { id: number; full_path: string }): ScmTeam {
  const [org = '', ...rest] = group.full_path.split('/');
  return { org, slug: rest.join('/'), uid: String(group.id) };
}

/** The subgroups the token's user is a member of (`GET /groups?min_access_level=10`, every page). */
export async function gitLabTeams(client: GitLabClient, token: string): Promise<ScmTeam[]> {
  const groups = await client.list(token, '/groups?min_access_level=10', groupSchema);
  return groups.filter((group) => group.full_path.includes('/')).map(toTeam);
}

/** The subgroup `org/slug` (`GET /groups/:id` by its full path); 404 → NOT_FOUND. */
export async function gitLabFindTeam(
  client: GitLabClient,
  token: string,
  org: string,
  slug: string,
): Promise<ScmTeam> {
  return toTeam(await client.json(token, 'GET', `/groups/${segment(`${org}/${slug}`)}`, groupSchema));
}
