import type { Context, Reply } from '../forge/router.js';
import type { ForgeState } from '../forge/state.js';
import type { GogsUrls } from './render.js';

/** An access token as `GET /users/{u}/tokens` knows it. */
export interface NamedToken {
  login: string;
  name: string;
  token: string;
}

/** What every route sees. */
export interface Env {
  state: ForgeState;
  urls: GogsUrls;
  /** Passwords by lower-case login. */
  passwords: Map<string, string>;
  /** Every access token with its name, oldest first. */
  named: NamedToken[];
  /** Calls the double does not know (`METHOD /path`), for tests to check that there are none. */
  unknown: string[];
}

/** How a route wants its caller: Gogs' `reqToken` routes, `reqBasicAuth` ones, or either/none. */
export type Auth = 'token' | 'basic' | 'optional';

export interface GogsRoute {
  method: string;
  pattern: string;
  auth: Auth;
  handler: (ctx: Context) => Reply;
}

/** Gogs' JSON error: `message` and a link to its API docs. */
export function error(status: number, message: string): Reply {
  return { status, body: { message, url: 'https://github.com/gogs/docs-api' } };
}

/** Most Gogs refusals (401, 403, API 404s) have an empty body. */
export const empty = (status: number): Reply => ({
  status,
  text: '',
  headers: { 'content-type': 'text/plain' },
});

/** What Gogs' router answers for unknown paths (and unknown refs of `/raw/`): its HTML 404 page. */
export const htmlNotFound = (): Reply => ({
  status: 404,
  text: '<!DOCTYPE html><html><head><title>Page Not Found - Gogs</title></head><body>404</body></html>',
});
