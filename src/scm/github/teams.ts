import { z } from 'zod';
import type { ScmTeam } from '../../core/scm.js';
import type { GitHubClient } from './client.js';

/** A team as `GET /user/teams` and `GET /orgs/{org}/teams/{team_slug}` render it ("team-full"). */
const teamSchema = z.object({
  id: z.number(),
  slug: z.string(),
  organization: z.object({ login: z.string() }),
});

function toTeam(team: z.infer<typeof teamSchema>): ScmTeam {
  return { org: team.organization.login, slug: team.slug, uid: String(team.id) };
}

/** The teams of the token's user, every page (docs: rest/teams/teams, "list teams for the authenticated user"). */
export async function gitHubTeams(client: GitHubClient, token: string): Promise<ScmTeam[]> {
  return (await client.list(token, '/user/teams', teamSchema)).map(toTeam);
}

/** A team by its organization and slug (docs: rest/teams/teams, "get a team by name"); 404 → NotFoundError. */
export async function gitHubFindTeam(
  client: GitHubClient,
  token: string,
  org: string,
  slug: string,
): Promise<ScmTeam> {
  const path = `/orgs/${encodeURIComponent(org)}/teams/${encodeURIComponent(slug)}`;
  return toTeam(await client.json(token, 'GET', path, teamSchema));
}
