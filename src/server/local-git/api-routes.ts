import type { FastifyInstance } from 'fastify';
import { ForbiddenError, InvalidInputError, NotFoundError } from '../../core/errors.js';
import {
  addSamplePipeline,
  createAccount,
  createRepository,
  setPassword,
} from '../../scm/local/forge-ops.js';
import { verifyPassword } from '../../scm/local/passwords.js';
import type { LocalGitProvider } from '../../scm/local/provider.js';
import type { Authenticator } from '../auth/authenticator.js';
import { callerAccount } from './caller-account.js';
import { localRefsRoute } from './refs-route.js';

/** What the built-in provider's API needs. */
export interface LocalGitApiDeps {
  readonly provider: LocalGitProvider;
  readonly auth: Pick<Authenticator, 'require'>;
  /** svc's public address, for clone URLs and links. */
  readonly publicUrl: string;
}

const IMAGE = /^[a-z0-9][a-z0-9._/:@-]{0,255}$/;

/**
 * The built-in provider's API (docs/local-git.md):
 * - `GET /api/local`: that the server hosts repositories, and where git reaches them (see
 *   noLocalGitRoute for a server that does not);
 * - `POST /api/local/repos` `{name, private}`: a new repository of the caller's;
 * - `POST /api/local/repos/:owner/:name/sample` `{image?}`: commits a sample pipeline, which builds;
 * - `GET /api/local/repos/:owner/:name/refs`: branches and tags with their commits' statuses (refs-route.ts);
 * - `POST /api/local/accounts` `{login, password, admin}`: a new account (svc administrators only);
 * - `POST /api/local/password` `{current, password}`: the caller's new password, given the current one.
 */
export function localGitApiRoutes(app: FastifyInstance, deps: LocalGitApiDeps): void {
  const base = deps.publicUrl.replace(/\/+$/, '');
  const accountOf = callerAccount(deps);
  app.get('/api/local', async (request) => {
    await deps.auth.require(request);
    return { enabled: true, git: `${base}/git` };
  });
  app.post('/api/local/repos', async (request, reply) => {
    const account = await accountOf(request);
    const body = (request.body ?? {}) as { name?: unknown; private?: unknown };
    if (typeof body.name !== 'string') throw new InvalidInputError('name: expected the repository’s name');
    const repo = await createRepository(deps.provider, account, {
      name: body.name,
      private: body.private !== false,
    });
    return reply.code(201).send({
      namespace: repo.owner,
      name: repo.name,
      private: repo.private,
      clone_url: deps.provider.publicCloneUrl(repo),
    });
  });
  app.post('/api/local/repos/:owner/:name/sample', async (request, reply) => {
    const account = await accountOf(request);
    const { owner, name } = request.params as { owner: string; name: string };
    const repo = deps.provider.state.repo(owner, name);
    const role = repo === undefined ? undefined : deps.provider.roleOf(account, repo);
    if (repo === undefined || role === undefined) throw new NotFoundError(`repository ${owner}/${name}`);
    if (role === 'read')
      throw new ForbiddenError(`${account.login} may not push to ${repo.owner}/${repo.name}`);
    const image = ((request.body ?? {}) as { image?: unknown }).image ?? 'alpine:3';
    if (typeof image !== 'string' || !IMAGE.test(image))
      throw new InvalidInputError('image: expected an image reference such as alpine:3');
    const sha = await addSamplePipeline(
      deps.provider,
      repo,
      account,
      image,
      `${base}/${repo.owner}/${repo.name}`,
    );
    return reply.code(201).send({ sha });
  });
  localRefsRoute(app, deps.provider, accountOf);
  app.post('/api/local/password', async (request, reply) => {
    const account = await accountOf(request);
    const body = (request.body ?? {}) as { current?: unknown; password?: unknown };
    if (typeof body.current !== 'string' || typeof body.password !== 'string')
      throw new InvalidInputError('current and password: expected the current password and the new one');
    // A stolen session alone does not change the password: the current one must be known.
    if (!(await verifyPassword(body.current, account.passwordHash)))
      throw new ForbiddenError('current: not your current password');
    await setPassword(deps.provider, account, body.password);
    request.log.info({ login: account.login }, 'built-in git provider: password changed');
    return reply.code(204).send();
  });
  app.post('/api/local/accounts', async (request, reply) => {
    const { user } = await deps.auth.require(request);
    if (!user.admin) throw new ForbiddenError('accounts are made by svc administrators');
    const body = (request.body ?? {}) as {
      login?: unknown;
      password?: unknown;
      admin?: unknown;
      email?: unknown;
    };
    if (typeof body.login !== 'string' || typeof body.password !== 'string')
      throw new InvalidInputError('login and password: expected the new account’s name and password');
    const made = await createAccount(deps.provider, {
      login: body.login,
      password: body.password,
      admin: body.admin === true,
      email: typeof body.email === 'string' ? body.email : '',
    });
    return reply.code(201).send({ login: made.login, admin: made.admin });
  });
}

/** `GET /api/local` of a server without the built-in provider: `{ "enabled": false }`, for the UI. */
export function noLocalGitRoute(app: FastifyInstance): void {
  app.get('/api/local', () => ({ enabled: false }));
}
