import { z } from 'zod';
import { SvcError } from '../../core/errors.js';
import type { ScmTeam } from '../../core/scm.js';
import type { GiteaClient } from './client.js';

/** A team as `GET /user/teams` renders it (with its organization) and `GET /orgs/{org}/teams` (without). */
const teamSchema = z.object({
  id: z.number(),
  name: z.string(),
  organization: z.object({ username: z.string().optional(), name: z.string().optional() }).nullish(),
});

/** The teams of the token's user, every page (`GET /user/teams`). */
export async function giteaTeams(client: GiteaClient, token: string): Promise<ScmTeam[]> {
  const teams = await client.list(token, '/user/teams', teamSchema);
  return teams.map((team) => ({
    org: team.organization?.username ?? team.organization?.name ?? '',
    slug: team.name,
    uid: String(team.id),
  }));
}

/**
 * A team by its organization and name (`GET /orgs/{org}/teams`, every page: Gitea's search of an
 * organization's teams shows a non-administrator only their own). Team names compare without case,
 * as Gitea keeps them unique.
 */
export async function giteaFindTeam(
  client: GiteaClient,
  token: string,
  org: string,
  slug: string,
): Promise<ScmTeam> {
  const teams = await client.list(token, `/orgs/${encodeURIComponent(org)}/teams`, teamSchema);
  const team = teams.find((candidate) => candidate.name.toLowerCase() === slug.toLowerCase());
  if (team === undefined) throw new SvcError('NOT_FOUND', `Gitea has no team ${slug} in ${org}`);
  return { org, slug: team.name, uid: String(team.id) };
}
