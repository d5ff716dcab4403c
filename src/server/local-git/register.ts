import type { FastifyInstance } from 'fastify';
import type { UserStore } from '../../core/user.js';
import { avatarSvg } from '../../scm/local/avatar.js';
import type { LocalGitProvider } from '../../scm/local/provider.js';
import type { Authenticator } from '../auth/authenticator.js';
import type { LoginFinishDeps } from '../auth/login-finish.js';
import { localGitApiRoutes } from './api-routes.js';
import { apiTokenAccounts } from './git-auth.js';
import { gitHttpRoutes } from './git-http.js';
import { setupRoutes } from './setup-route.js';

/** What the built-in provider's routes need from the server. */
export interface LocalGitRoutesDeps extends Omit<LoginFinishDeps, 'provider'> {
  readonly provider: LocalGitProvider;
  readonly auth: Pick<Authenticator, 'require'>;
  readonly users: LoginFinishDeps['users'] & Pick<UserStore, 'findTokenHash' | 'findLogin' | 'update'>;
  /** svc's public address (SVC_SERVER_PROTO://SVC_SERVER_HOST). */
  readonly publicUrl: string;
}

/**
 * The built-in provider's routes: git over HTTP at `/git/<owner>/<name>.git`, accounts' pictures,
 * its API (api-routes.ts), and while no account exists the one-time setup page. Returns the setup
 * link to print, if any.
 */
export function registerLocalGitRoutes(app: FastifyInstance, deps: LocalGitRoutesDeps): string | undefined {
  gitHttpRoutes(app, {
    provider: deps.provider,
    publicUrl: deps.publicUrl,
    accountIdOfApiToken: apiTokenAccounts(deps.users),
  });
  app.get('/git/-/avatar/:file', (request, reply) => {
    const login = decodeURIComponent((request.params as { file: string }).file).replace(/\.svg$/, '');
    return reply
      .type('image/svg+xml')
      .header('cache-control', 'public, max-age=86400')
      .send(avatarSvg(login));
  });
  localGitApiRoutes(app, { provider: deps.provider, auth: deps.auth, publicUrl: deps.publicUrl });
  const setup = setupRoutes(app, { ...deps, provider: deps.provider });
  return setup === undefined ? undefined : `${deps.publicUrl.replace(/\/+$/, '')}/setup?token=${setup}`;
}
