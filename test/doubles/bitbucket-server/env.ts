/**
 * What every part of the Bitbucket Server double shares: its state beyond the forge state (projects,
 * OAuth 1.0a tokens, seen nonces, webhook names, build statuses, pull requests), the error envelope
 * and the paging of lists. Not modelled: the `filter` member some pages carry.
 */
import type { KeyObject } from 'node:crypto';
import type { Context, Reply } from '../forge/router.js';
import type { ForgeState, Repo } from '../forge/state.js';

/** A project; a personal one (`~SLUG`) belongs to the user `owner`. */
export interface Project {
  id: number;
  key: string;
  name: string;
  owner: string | undefined;
}

/** Temporary credentials: live ten minutes; the browser's decision adds `login` and a verifier. */
export interface RequestToken {
  secret: string;
  callback: string;
  expires: number;
  login: string | undefined;
  verifier: string | undefined;
}

/** Token credentials of one user for the consumer (`oauth_expires_in` seconds). */
export interface AccessToken {
  secret: string;
  login: string;
  expires: number;
  session: string;
}

/** A build status as posted (either endpoint). */
export interface BuildStatus {
  state: string;
  key: string;
  name: string;
  url: string;
  description: string;
  dateAdded: number;
}

/** An open pull request: where it comes from and what the target has seen of it. */
export interface PullRequest {
  id: number;
  repo: Repo;
  from: Repo;
  head: string;
  author: string;
  title: string;
  created: number;
  updated: number;
  version: number;
  fromHash: string;
}

export interface Env {
  state: ForgeState;
  /** The server's base URL (no context path). */
  url: string;
  /** The product version, e.g. [8, 19, 0]. */
  version: number[];
  consumer: { key: string; publicKey: KeyObject };
  /** Projects by lower-case key. */
  projects: Map<string, Project>;
  requestTokens: Map<string, RequestToken>;
  accessTokens: Map<string, AccessToken>;
  /** `consumer|timestamp|nonce` of every signed request seen. */
  nonces: Set<string>;
  hookNames: Map<number, string>;
  /** Current statuses per commit (one per key), as the server lists them. */
  statuses: Map<string, BuildStatus[]>;
  /** Every status posted per commit, oldest first (what the test reads). */
  statusLog: Map<string, BuildStatus[]>;
  /** Pull requests by `repoId/id`. */
  pulls: Map<string, PullRequest>;
  now: () => number;
  limitedUntil: number;
  unknown: string[];
}

export type Handler = (ctx: Context) => Reply;

export interface Route {
  method: string;
  pattern: string;
  handler: Handler;
}

/** Whether the double's version is at least `wanted` ("7.4"). */
export function atLeast(env: Env, wanted: string): boolean {
  const want = wanted.split('.').map(Number);
  for (let i = 0; i < Math.max(want.length, env.version.length); i++) {
    const have = env.version[i] ?? 0;
    const need = want[i] ?? 0;
    if (have !== need) return have > need;
  }
  return true;
}

export const EXCEPTIONS = {
  auth: 'com.atlassian.bitbucket.AuthorisationException',
  project: 'com.atlassian.bitbucket.project.NoSuchProjectException',
  repo: 'com.atlassian.bitbucket.repository.NoSuchRepositoryException',
  commit: 'com.atlassian.bitbucket.commit.NoSuchCommitException',
  path: 'com.atlassian.bitbucket.content.NoSuchPathException',
  user: 'com.atlassian.bitbucket.user.NoSuchUserException',
  branch: 'com.atlassian.bitbucket.repository.NoDefaultBranchException',
  webhook: 'com.atlassian.bitbucket.webhook.NoSuchWebhookException',
} as const;

/** Bitbucket's error envelope: `{"errors":[{"context","message","exceptionName"}]}`. */
export function errors(
  status: number,
  message: string,
  exceptionName: string | null,
  context: string | null = null,
): Reply {
  return { status, body: { errors: [{ context, message, exceptionName }] } };
}

/** Several validation errors at once (400, `exceptionName` null). */
export function invalid(list: { context: string; message: string }[]): Reply {
  return {
    status: 400,
    body: { errors: list.map((e) => ({ context: e.context, message: e.message, exceptionName: null })) },
  };
}

/** The 401 Bitbucket answers a user who lacks a permission (or an anonymous request). */
export const notPermitted = (): Reply =>
  errors(401, 'You are not permitted to access this resource', EXCEPTIONS.auth);

/**
 * A page of a list: `start` (offset), `limit` (default 25, at most 1000), and the envelope
 * `{size, limit, isLastPage, values, start, nextPageStart}` (`nextPageStart` only when not last).
 */
export function paged<T>(ctx: Context, items: readonly T[]): Reply {
  const query = ctx.url.searchParams;
  const asked = Number(query.get('limit') ?? 25);
  const limit = Number.isInteger(asked) && asked > 0 ? Math.min(asked, 1000) : 25;
  const from = Number(query.get('start') ?? 0);
  const start = Number.isInteger(from) && from > 0 ? from : 0;
  const values = items.slice(start, start + limit);
  const isLastPage = start + values.length >= items.length;
  return {
    status: 200,
    body: {
      size: values.length,
      limit,
      isLastPage,
      values,
      start,
      ...(isLastPage ? {} : { nextPageStart: start + values.length }),
    },
  };
}

/** A string member of a JSON body, or undefined. */
export const str = (body: Record<string, unknown>, name: string): string | undefined =>
  typeof body[name] === 'string' ? body[name] : undefined;
