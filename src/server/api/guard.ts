import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ForbiddenError } from '../../core/errors.js';
import type { Repo } from '../../core/repo.js';
import type { Authenticator, Principal } from '../auth/authenticator.js';
import type { NamespaceAccess } from './namespace-access.js';
import { parseInput, RepoParams } from './params.js';
import type { RepoAccess } from './repo-access.js';
import type { Access } from './route.js';

/** What enforcing access rules needs. */
export interface AccessGuardDeps {
  readonly auth: Pick<Authenticator, 'identify' | 'require'>;
  readonly repos: Pick<RepoAccess, 'check' | 'checkAtProvider'>;
  readonly namespaces: Pick<NamespaceAccess, 'check'>;
}

/** Who was admitted, and to which repository for `repo` routes. */
export interface Admitted {
  readonly principal: Principal | undefined;
  readonly repo: Repo | undefined;
}

const NamespaceParams = z.object({ namespace: z.string().min(1) });

/**
 * Enforces a route's access rule (route.ts) before its code runs: the one place where the API
 * decides who may do what. Denials are UNAUTHORIZED for anonymous callers, NOT_FOUND for callers
 * who may not even see the repository or namespace, FORBIDDEN otherwise.
 */
export class AccessGuard {
  readonly #deps: AccessGuardDeps;

  constructor(deps: AccessGuardDeps) {
    this.#deps = deps;
  }

  async admit(access: Access, request: FastifyRequest): Promise<Admitted> {
    const { auth } = this.#deps;
    switch (access.kind) {
      case 'anyone':
        return { principal: await auth.identify(request), repo: undefined };
      case 'user':
        return { principal: await auth.require(request), repo: undefined };
      case 'admin': {
        const principal = await auth.require(request);
        if (!principal.user.admin) throw new ForbiddenError('only svc administrators may do this');
        return { principal, repo: undefined };
      }
      case 'repo': {
        const { owner, name } = parseInput(RepoParams, request.params);
        const principal = await auth.identify(request);
        const repo =
          access.atProvider === true
            ? await this.#deps.repos.checkAtProvider(owner, name, principal, access.need)
            : await this.#deps.repos.check(owner, name, principal, access.need);
        return { principal, repo };
      }
      case 'namespace': {
        const { namespace } = parseInput(NamespaceParams, request.params);
        const principal = await auth.require(request);
        await this.#deps.namespaces.check(namespace, principal, access.need);
        return { principal, repo: undefined };
      }
    }
  }
}
