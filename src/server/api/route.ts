import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { Repo } from '../../core/repo.js';
import type { Principal } from '../auth/authenticator.js';
import type { Need } from './repo-access.js';

/**
 * Who may call an API route. Every route of the table declares one; the guard (guard.ts) enforces
 * it before the route's own code runs, and the authorization matrix test sends every route every
 * kind of caller against it.
 * - `anyone`: anonymous callers too.
 * - `user`: any logged-in account (a person or a machine account).
 * - `admin`: svc administrators.
 * - `repo`: the repository of the path's `{owner}/{name}`, with the caller's permission on it
 *   (`read` on a public repository: anyone). Callers who may not read it get 404, so that private
 *   names do not leak. With `atProvider`, the permission is asked afresh from the git provider and
 *   the repository need not be known to svc yet (enabling); svc administrators are not special then.
 * - `namespace`: the path's `{namespace}` (an organization or a user): `read` for its members,
 *   `admin` for its administrators (a user administers their own namespace).
 */
export type Access =
  | { readonly kind: 'anyone' }
  | { readonly kind: 'user' }
  | { readonly kind: 'admin' }
  | { readonly kind: 'repo'; readonly need: Need; readonly atProvider?: true }
  | { readonly kind: 'namespace'; readonly need: 'read' | 'admin' };

export const ANYONE = { kind: 'anyone' } as const;
export const USER = { kind: 'user' } as const;
export const ADMIN = { kind: 'admin' } as const;
export const REPO_READ = { kind: 'repo', need: 'read' } as const;
export const REPO_WRITE = { kind: 'repo', need: 'write' } as const;
export const REPO_ADMIN = { kind: 'repo', need: 'admin' } as const;
export const REPO_ADMIN_AT_PROVIDER = { kind: 'repo', need: 'admin', atProvider: true } as const;
export const NAMESPACE_READ = { kind: 'namespace', need: 'read' } as const;
export const NAMESPACE_ADMIN = { kind: 'namespace', need: 'admin' } as const;

/** The caller as a route of that access sees it: only `anyone` and repository reads may be anonymous. */
export type PrincipalOf<A extends Access> = A extends { kind: 'anyone' }
  ? Principal | undefined
  : A extends { kind: 'repo'; need: 'read' }
    ? Principal | undefined
    : Principal;

/** The repository a `repo` route acts on, as the guard found it. */
export type RepoOf<A extends Access> = A extends { kind: 'repo' } ? Repo : undefined;

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What a route's code gets: the admitted caller and its input, parsed with the route's schemas. */
export interface RouteContext<A extends Access, P, Q, B> {
  readonly request: FastifyRequest;
  readonly reply: FastifyReply;
  readonly principal: PrincipalOf<A>;
  readonly repo: RepoOf<A>;
  readonly params: P;
  readonly query: Q;
  readonly body: B;
}

/** What a route answers, for the OpenAPI document. */
export interface RouteResponse {
  /** Default 200. */
  readonly status?: number;
  /** The JSON shape; absent for answers without a JSON body. */
  readonly schema?: z.ZodType;
  /** Default `application/json` when `schema` is given. */
  readonly contentType?: string;
  readonly description: string;
}

/** One API route, as written: method, path, access rule, input schemas, documentation, code. */
export interface RouteSpec<A extends Access, P, Q, B> {
  readonly method: HttpMethod;
  /** Fastify syntax: `/api/repos/:owner/:name`. */
  readonly path: string;
  readonly access: A;
  /** One line for the OpenAPI document. */
  readonly summary: string;
  /** The OpenAPI tag (the group in docs/api.md). */
  readonly tag: string;
  readonly params?: z.ZodType<P>;
  readonly query?: z.ZodType<Q>;
  /** A route with a body schema parses it; an empty body reads as `{}`. */
  readonly body?: z.ZodType<B>;
  readonly response: RouteResponse;
  readonly handler: (context: RouteContext<A, P, Q, B>) => Promise<unknown>;
}

/** A route of the table with its types erased, as the registry and the OpenAPI generator see it. */
export interface ApiRoute {
  readonly method: HttpMethod;
  readonly path: string;
  readonly access: Access;
  readonly summary: string;
  readonly tag: string;
  readonly params: z.ZodType | undefined;
  readonly query: z.ZodType | undefined;
  readonly body: z.ZodType | undefined;
  readonly response: RouteResponse;
  readonly handler: (context: RouteContext<Access, unknown, unknown, unknown>) => Promise<unknown>;
}

/** Declares a route; its types flow from the access rule and the schemas into the handler. */
export function route<A extends Access, P = Record<string, never>, Q = Record<string, never>, B = undefined>(
  spec: RouteSpec<A, P, Q, B>,
): ApiRoute {
  return {
    method: spec.method,
    path: spec.path,
    access: spec.access,
    summary: spec.summary,
    tag: spec.tag,
    params: spec.params,
    query: spec.query,
    body: spec.body,
    response: spec.response,
    handler: spec.handler as ApiRoute['handler'],
  };
}
