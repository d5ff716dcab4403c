import type { Env } from './env.js';
import { error, paginate, type Context, type Reply, type Route } from './http.js';
import { organization, privateUser, repository, simpleUser } from './render.js';

/** Answers 401 like GitHub when a user endpoint is called without a token. */
export function requireUser(ctx: Context): string | Reply {
  return ctx.login ?? error(401, 'Requires authentication');
}

/**
 * The authenticated user's endpoints (docs: rest/users/users, rest/users/emails, rest/orgs/orgs,
 * rest/orgs/members, rest/repos/repos).
 */
export function userRoutes(env: Env): Route[] {
  const { state, urls } = env;
  return [
    {
      method: 'GET',
      pattern: '/user',
      handler(ctx) {
        const login = requireUser(ctx);
        if (typeof login !== 'string') return login;
        const user = state.user(login);
        return user === undefined
          ? error(401, 'Bad credentials')
          : { status: 200, body: privateUser(user, urls) };
      },
    },
    {
      method: 'GET',
      pattern: '/user/emails',
      handler(ctx) {
        const login = requireUser(ctx);
        if (typeof login !== 'string') return login;
        const user = state.user(login);
        const emails = user?.primaryEmail
          ? [{ email: user.primaryEmail, primary: true, verified: true, visibility: 'private' }]
          : [];
        return paginate(ctx, emails, urls.api);
      },
    },
    {
      method: 'GET',
      pattern: '/user/orgs',
      handler(ctx) {
        const login = requireUser(ctx);
        if (typeof login !== 'string') return login;
        const orgs = (state.user(login)?.orgs ?? []).map((org, index) =>
          organization(org, 9_000 + index, urls),
        );
        return paginate(ctx, orgs, urls.api);
      },
    },
    {
      // docs: rest/orgs/members#get-an-organization-membership-for-the-authenticated-user
      method: 'GET',
      pattern: '/user/memberships/orgs/{org}',
      handler(ctx) {
        const login = requireUser(ctx);
        if (typeof login !== 'string') return login;
        const user = state.user(login);
        const org = ctx.params.org ?? '';
        const index = (user?.orgs ?? []).findIndex((o) => o.toLowerCase() === org.toLowerCase());
        const name = user?.orgs[index];
        if (user === undefined || name === undefined) return error(404, 'Not Found');
        const organizationJson = organization(name, 9_000 + index, urls);
        return {
          status: 200,
          body: {
            url: `${organizationJson.url}/memberships/${user.login}`,
            state: 'active',
            role: user.orgAdmin.includes(name.toLowerCase()) ? 'admin' : 'member',
            organization_url: organizationJson.url,
            organization: organizationJson,
            user: simpleUser(user, urls),
          },
        };
      },
    },
    {
      method: 'GET',
      pattern: '/user/repos',
      handler(ctx) {
        const login = requireUser(ctx);
        if (typeof login !== 'string') return login;
        // GitHub's default order for this list is by full name.
        const repos = [...state.repos.values()]
          .filter((repo) => state.isAffiliated(repo, login))
          .sort((a, b) => `${a.owner}/${a.name}`.localeCompare(`${b.owner}/${b.name}`))
          .map((repo) => repository(state, repo, login, urls));
        return paginate(ctx, repos, urls.api);
      },
    },
  ];
}
