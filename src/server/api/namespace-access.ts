import { ForbiddenError, NotFoundError, UnauthorizedError } from '../../core/errors.js';
import type { ScmProvider } from '../../core/scm.js';
import type { Principal } from '../auth/authenticator.js';
import { scmTokenOf } from '../auth/scm-token.js';

/** A user's standing in an organization at the git provider. */
export interface Membership {
  readonly member: boolean;
  readonly admin: boolean;
}

/** Asks the git provider whether a user belongs to (and administers) an organization. */
export type MembershipLookup = (principal: Principal, namespace: string) => Promise<Membership>;

/** Asks the git provider with the caller's own token; undefined without a provider. */
export function providerMembership(
  provider: Pick<ScmProvider, 'membership'> | undefined,
): MembershipLookup | undefined {
  if (provider === undefined) return undefined;
  return (principal, namespace) => provider.membership(scmTokenOf(principal.user), namespace);
}

const NONE: Membership = { member: false, admin: false };

/**
 * Decides access to a namespace (organization secrets): svc administrators may do everything, a
 * user administers their own namespace, and an organization's members may read and its
 * administrators change, as the git provider says. Someone who is not even a member gets
 * NOT_FOUND, as for private repositories.
 */
export class NamespaceAccess {
  readonly #lookup: MembershipLookup | undefined;

  constructor(lookup?: MembershipLookup) {
    this.#lookup = lookup;
  }

  async check(namespace: string, principal: Principal | undefined, need: 'read' | 'admin'): Promise<void> {
    if (principal === undefined)
      throw new UnauthorizedError('log in or send an API token to use this namespace');
    const standing = await this.membership(namespace, principal);
    if (need === 'read' ? standing.member : standing.admin) return;
    if (!standing.member) throw new NotFoundError(`namespace ${namespace}`);
    throw new ForbiddenError(`administering the namespace ${namespace} is needed`);
  }

  async membership(namespace: string, principal: Principal): Promise<Membership> {
    const { user } = principal;
    if (user.admin || user.login.toLowerCase() === namespace.toLowerCase())
      return { member: true, admin: true };
    if (this.#lookup === undefined || user.scmToken === '') return NONE;
    return this.#lookup(principal, namespace);
  }
}
