import type { Env } from './env.js';
import { error, paginate, type Route } from './http.js';
import { organization } from './render.js';
import { requireUser } from './routes-user.js';

/** A team of an organization with its members' logins (lower case). */
export interface Team {
  id: number;
  org: string;
  slug: string;
  name: string;
  members: Set<string>;
}

/** A team as GitHub renders it ("team-full": docs rest/teams/teams), with its organization. */
function teamJson(env: Env, team: Team) {
  const url = `${env.urls.api}/orgs/${team.org}/teams/${team.slug}`;
  return {
    id: team.id,
    node_id: Buffer.from(`04:Team${team.id}`).toString('base64'),
    url,
    html_url: `${env.urls.web}/orgs/${team.org}/teams/${team.slug}`,
    name: team.name,
    slug: team.slug,
    description: null,
    privacy: 'closed',
    permission: 'pull',
    members_url: `${url}/members{/member}`,
    repositories_url: `${url}/repos`,
    parent: null,
    members_count: team.members.size,
    repos_count: 0,
    organization: organization(team.org, env.state.orgId(team.org), env.urls),
  };
}

/**
 * Teams (docs: rest/teams/teams): `GET /user/teams` — "List teams for the authenticated user", every
 * organization, paged; `GET /orgs/{org}/teams/{team_slug}` — "Get a team by name", 404 for a team
 * that does not exist or that a non-member of the organization asks for.
 */
export function teamRoutes(env: Env, teams: readonly Team[]): Route[] {
  return [
    {
      method: 'GET',
      pattern: '/user/teams',
      handler(ctx) {
        const login = requireUser(ctx);
        if (typeof login !== 'string') return login;
        const mine = teams.filter((team) => team.members.has(login.toLowerCase()));
        return paginate(
          ctx,
          mine.map((team) => teamJson(env, team)),
          env.urls.api,
        );
      },
    },
    {
      method: 'GET',
      pattern: '/orgs/{org}/teams/{team_slug}',
      handler(ctx) {
        const login = requireUser(ctx);
        if (typeof login !== 'string') return login;
        const org = (ctx.params.org ?? '').toLowerCase();
        const slug = (ctx.params.team_slug ?? '').toLowerCase();
        const member = (env.state.user(login)?.orgs ?? []).some((o) => o.toLowerCase() === org);
        const team = teams.find((t) => t.org.toLowerCase() === org && t.slug === slug);
        return team === undefined || !member
          ? error(404, 'Not Found')
          : { status: 200, body: teamJson(env, team) };
      },
    },
  ];
}
