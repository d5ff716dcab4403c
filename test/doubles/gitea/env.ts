import type { Context, Reply } from '../forge/router.js';
import type { ForgeState } from '../forge/state.js';

/** The double's own addresses. */
export interface GiteaUrls {
  web: string;
  api: string;
}

/** An OAuth2 access token: whose, and until when (epoch ms). */
export interface AccessToken {
  login: string;
  expires: number;
}

/** What every route sees. */
export interface Env {
  state: ForgeState;
  urls: GiteaUrls;
  app: { clientId: string; clientSecret: string };
  /** OAuth codes handed out (single use) and the login each is for. */
  codes: Map<string, string>;
  /** Access tokens with their expiry; personal tokens of `addUser` live in `state.tokens` and never expire. */
  access: Map<string, AccessToken>;
  /** Refresh tokens and their login; `rotate` makes each single-use (Forgejo's default). */
  refresh: Map<string, string>;
  rotate: boolean;
  /** How long access tokens live, in seconds (`ACCESS_TOKEN_EXPIRATION_TIME`, 3600). */
  lifetime: number;
  /** The double's clock (tests move it to expire tokens). */
  now: () => number;
  /** Calls the double does not know, as `METHOD /path`. */
  unknown: string[];
}

export interface GiteaRoute {
  method: string;
  pattern: string;
  /** `reqToken()`: answered 401 without a valid token. */
  auth: 'token' | 'optional';
  handler: (ctx: Context) => Reply;
}

/** Gitea's JSON error (`APIError`): `message` and the API docs' address. */
export function error(env: Env, status: number, message: string): Reply {
  return { status, body: { message, url: `${env.urls.web}/api/swagger` } };
}

/** Gitea's `NotFound`: a fixed message and the reasons. */
export function notFound(env: Env, ...errors: string[]): Reply {
  return {
    status: 404,
    body: { message: "The target couldn't be found.", url: `${env.urls.web}/api/swagger`, errors },
  };
}
