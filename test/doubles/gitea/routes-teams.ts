import type { Context, Reply } from '../forge/router.js';
import type { Env, GiteaRoute } from './env.js';
import { paginate } from './paginate.js';
import { renderOrg } from './render.js';

/** A team of an organization with its members' logins (lower case). */
export interface GiteaTeam {
  id: number;
  org: string;
  name: string;
  members: Set<string>;
}

/** A team as Gitea's convert.ToTeam renders it; `organization` only where the route loads it. */
function teamJson(env: Env, team: GiteaTeam, withOrg: boolean) {
  return {
    id: team.id,
    name: team.name,
    description: '',
    organization: withOrg ? renderOrg(team.org, 50_000, env.urls) : null,
    includes_all_repositories: false,
    permission: 'write',
    units: ['repo.code'],
    units_map: { 'repo.code': 'write' },
    can_create_org_repo: false,
  };
}

const memberOf = (env: Env, login: string, org: string) =>
  env.state.user(login)?.orgs.some((name) => name.toLowerCase() === org.toLowerCase()) === true;

/**
 * Teams (routers/api/v1/org/team.go): `GET /user/teams` — every team the token's user is in, paged,
 * with its organization; `GET /orgs/{org}/teams` — the organization's teams, paged, without it, for
 * its members (403 "Must be an organization member" to others, as reqOrgMembership answers).
 */
export function teamRoutes(env: Env, teams: readonly GiteaTeam[]): GiteaRoute[] {
  return [
    {
      method: 'GET',
      pattern: '/user/teams',
      auth: 'token',
      handler: (ctx: Context): Reply => {
        const login = (ctx.login ?? '').toLowerCase();
        const mine = teams.filter((team) => team.members.has(login));
        return paginate(
          ctx,
          mine.map((team) => teamJson(env, team, true)),
          env.urls.api,
        );
      },
    },
    {
      method: 'GET',
      pattern: '/orgs/{org}/teams',
      auth: 'token',
      handler: (ctx: Context): Reply => {
        const org = ctx.params.org ?? '';
        if (!memberOf(env, ctx.login ?? '', org))
          return { status: 403, body: { message: 'Must be an organization member', url: env.urls.api } };
        const theirs = teams.filter((team) => team.org.toLowerCase() === org.toLowerCase());
        return paginate(
          ctx,
          theirs.map((team) => teamJson(env, team, false)),
          env.urls.api,
        );
      },
    },
  ];
}
