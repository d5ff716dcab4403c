import type { FastifyRequest } from 'fastify';
import { ForbiddenError } from '../../core/errors.js';
import type { ForgeAccount } from '../../scm/local/forge-state.js';
import type { LocalGitProvider } from '../../scm/local/provider.js';
import type { Authenticator } from '../auth/authenticator.js';

/** The built-in provider's account of the request's svc user; ForbiddenError when it has none. */
export type CallerAccount = (request: FastifyRequest) => Promise<ForgeAccount>;

export function callerAccount(deps: {
  readonly provider: LocalGitProvider;
  readonly auth: Pick<Authenticator, 'require'>;
}): CallerAccount {
  return async (request) => {
    const { user } = await deps.auth.require(request);
    // By the id svc stored when the account logged in, never by name (logins can be renamed).
    const account = /^\d+$/.test(user.scmUid)
      ? deps.provider.state.accountById(Number(user.scmUid))
      : undefined;
    if (account === undefined)
      throw new ForbiddenError(`${user.login} has no account of the built-in git provider`);
    return account;
  };
}
