import type { FastifyRequest } from 'fastify';
import { ForbiddenError, UnauthorizedError } from '../../core/errors.js';
import type { User, UserStore } from '../../core/user.js';
import { hashApiToken } from './api-token.js';
import { sameText, type SessionCookies } from './session-cookies.js';

/** What authentication needs: users by id and by token, and the session cookie reader. */
export interface AuthenticatorDeps {
  readonly users: Pick<UserStore, 'find' | 'findTokenHash'>;
  readonly sessions: Pick<SessionCookies, 'read' | 'belongsTo'>;
}

/** Who is calling, and how they proved it. */
export interface Principal {
  readonly user: User;
  readonly via: 'session' | 'token';
  /** The CSRF token of the session (cookie-authenticated requests only). */
  readonly csrf?: string;
}

/** Methods that change nothing, and so need no CSRF token. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The header a cookie-authenticated state-changing request carries. */
export const CSRF_HEADER = 'x-csrf-token';

/**
 * Finds the user behind a request: `Authorization: Bearer <API token>` (people and machine accounts
 * alike), else the session cookie. A bearer token that matches no one is UNAUTHORIZED, not anonymous,
 * so that a client with a mistyped token hears about it; an expired or stale session cookie is just
 * anonymous. Inactive users are FORBIDDEN. A cookie-authenticated POST/PUT/PATCH/DELETE must carry
 * the session's CSRF token in X-CSRF-Token (a page on another site can make the browser send the
 * cookie, never that header); bearer tokens need none, browsers never attach them on their own.
 */
export class Authenticator {
  readonly #deps: AuthenticatorDeps;
  readonly #resolved = new WeakMap<FastifyRequest, Promise<Principal | undefined>>();

  constructor(deps: AuthenticatorDeps) {
    this.#deps = deps;
  }

  /** The caller, or undefined for an anonymous request; resolved once per request. */
  identify(request: FastifyRequest): Promise<Principal | undefined> {
    let principal = this.#resolved.get(request);
    if (principal === undefined) {
      principal = this.#identify(request);
      this.#resolved.set(request, principal);
    }
    return principal;
  }

  /** The caller; UNAUTHORIZED when anonymous. */
  async require(request: FastifyRequest): Promise<Principal> {
    const principal = await this.identify(request);
    if (principal === undefined)
      throw new UnauthorizedError('log in or send an API token (Authorization: Bearer <token>)');
    return principal;
  }

  async #identify(request: FastifyRequest): Promise<Principal | undefined> {
    const authorization = request.headers.authorization;
    if (authorization !== undefined) return { user: await this.#byToken(authorization), via: 'token' };
    const session = this.#deps.sessions.read(request.headers.cookie);
    if (session === undefined) return undefined;
    const user = await this.#deps.users.find(session.userId);
    if (user === undefined || !this.#deps.sessions.belongsTo(session, user)) return undefined;
    active(user);
    if (!SAFE_METHODS.has(request.method)) {
      const header = request.headers[CSRF_HEADER];
      if (typeof header !== 'string' || !sameText(header, session.csrf)) {
        throw new ForbiddenError(
          'missing or wrong CSRF token: send the X-CSRF-Token header (GET /api/user gives it as csrf)',
        );
      }
    }
    return { user, via: 'session', csrf: session.csrf };
  }

  async #byToken(authorization: string): Promise<User> {
    const token = bearerToken(authorization);
    if (token === undefined) throw new UnauthorizedError('the Authorization header must be "Bearer <token>"');
    // Tokens are stored as hashes: a copy of the database does not let anyone call the API.
    const hash = hashApiToken(token);
    const user = await this.#deps.users.findTokenHash(hash);
    // Databases may compare case-insensitively (MySQL collations): the exact check happens here.
    if (user === undefined || !sameText(user.tokenHash, hash))
      throw new UnauthorizedError('invalid API token');
    active(user);
    return user;
  }
}

/** The token of an `Authorization: Bearer <token>` header; undefined for any other header. */
export function bearerToken(authorization: string | undefined): string | undefined {
  return authorization === undefined ? undefined : /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
}

function active(user: User): void {
  if (!user.active) throw new ForbiddenError(`the account ${user.login} is inactive`);
}
