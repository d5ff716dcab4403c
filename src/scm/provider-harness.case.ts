import { createServer, type IncomingMessage, type Server } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { SvcError, type ErrorCode } from '../core/errors.js';
import type {
  ScmHookRequest,
  ScmOAuth2Login,
  ScmPasswordLogin,
  ScmProvider,
  ScmStatus,
  ScmToken,
} from '../core/scm.js';
import type { FaultRule } from '../../test/doubles/forge/faults.js';
import type { GitAuthOptions } from './netrc.js';

/**
 * What the contract suite needs from a provider's test double, in the provider's own terms.
 * Each provider's test file implements it over its double (test/doubles/<provider>/).
 */
export interface ScmTestDouble {
  /** A provider talking to the double, with these SVC_GIT_* settings (default: none set). */
  provider(git?: Partial<GitAuthOptions>): ScmProvider;
  /** A provider whose server does not answer (a closed port). */
  unreachableProvider(): ScmProvider;
  /** `orgs`: organizations the user is a member of; `orgAdmin`: those they administer (members too). */
  addUser(login: string, email: string, orgs?: string[], orgAdmin?: string[]): ScmToken;
  addRepo(repo: {
    owner: string;
    name: string;
    private?: boolean;
    admins?: string[];
    writers?: string[];
    readers?: string[];
  }): void;
  /** Adds a commit by the repository's owner on top of the branch; returns its sha. */
  commit(fullName: string, branch: string, files: Record<string, string>, message?: string): string;
  /**
   * OAuth 2 providers: plays the user's browser, opening the authorize page as `login`; returns
   * where it redirects to.
   */
  authorize?(authorizeUrl: string, login: string): Promise<URL>;
  /** Password providers: the password of a user added with `addUser`. */
  password?(login: string): string;
  hooks(fullName: string): { url: string; secret: string }[];
  statuses(
    fullName: string,
    sha: string,
  ): { state: string; context: string; description: string; targetUrl: string }[];
  /** The provider's name for each of svc's states. */
  expectedState(state: ScmStatus['state']): string;
  /** Makes the provider send its push webhook for the branch's head to `url`; `secret` overrides the hook's. */
  sendPush(fullName: string, branch: string, url: string, secret?: string): Promise<number>;
  /** The host name clone URLs of the double use. */
  cloneHost: string;
  /** The netrc login and password the provider derives from a token. */
  netrcLogin(token: ScmToken): { login: string; password: string };
  /** Makes matching requests fail (5xx, 429, a closed connection) instead of being answered. */
  fail(rule: FaultRule): void;
  /** How many requests got an injected failure so far. */
  faultHits(): number;
  /** Makes every API call fail as rate limited until `resetAt` (providers that have rate limits). */
  exhaustRateLimit?(resetAt: Date): void;
  close(): Promise<void>;
}

/** Starts a fresh double for one run of the suite. */
export interface ScmDoubleDriver {
  /** Names the run in test titles (`GitHub`, `GitHub Enterprise Server`, …). */
  name: string;
  /**
   * What the provider cannot do, each with the reason (its API has no such thing); the suite checks
   * the documented fallback instead, or skips the test naming the reason.
   */
  gaps?: {
    /** No rate limit to exhaust. */
    rateLimit?: string;
    /** No API says whether a member administers the organization: members are never admins. */
    orgAdmin?: string;
    /** Commits name no account of the provider: the author's login is empty. */
    commitAccount?: string;
    /**
     * No organizations (every namespace is an account's): `organizations` lists none, and an
     * account is a member and administrator of its own namespace only.
     */
    organizations?: string;
    /** Not reached over a network (svc's built-in provider): no faults to retry, nothing unreachable. */
    network?: string;
    /**
     * No API lists a change's files (paths conditions): `changedFiles` is absent, or answers every
     * change `known: false` with the reason.
     */
    changedFiles?: string;
  };
  start(): Promise<ScmTestDouble>;
}

/** A provider call's rejection, as an SvcError with its code. */
export async function rejection(promise: Promise<unknown>): Promise<SvcError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(SvcError);
    return error as SvcError;
  }
  throw new Error('expected the call to fail');
}

/** Expects the call to fail with an SvcError of that code. */
export async function expectCode(promise: Promise<unknown>, code: ErrorCode): Promise<SvcError> {
  const error = await rejection(promise);
  expect(error.code, error.message).toBe(code);
  return error;
}

/** A webhook receiver that keeps every request it gets, answering 204. */
export async function startReceiver(): Promise<{ url: string; requests: ScmHookRequest[]; server: Server }> {
  const requests: ScmHookRequest[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string') headers[name.toLowerCase()] = value;
      }
      requests.push({ headers, body: Buffer.concat(chunks) });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, requests, server };
}

/** The provider's OAuth 2 login; fails the test for a provider that logs in otherwise. */
export function oauth2Login(scm: ScmProvider): ScmOAuth2Login {
  if (scm.login.kind !== 'oauth2') throw new Error(`expected an OAuth 2 login, not ${scm.login.kind}`);
  return scm.login;
}

/** The provider's username/password login; fails the test for a provider that logs in otherwise. */
export function passwordLogin(scm: ScmProvider): ScmPasswordLogin {
  if (scm.login.kind !== 'password') throw new Error(`expected a password login, not ${scm.login.kind}`);
  return scm.login;
}

/**
 * Plays the browser on an authorize page served over https with a self-signed certificate (which a
 * person would accept): answers where the page redirects to.
 */
export function authorizeInsecure(url: string): Promise<URL> {
  return new Promise((resolve, reject) => {
    https
      .get(url, { rejectUnauthorized: false }, (res) => {
        res.resume();
        resolve(new URL(res.headers.location ?? ''));
      })
      .on('error', reject);
  });
}

/** What every forge double of test/doubles offers, as the contract drivers use it. */
export interface ForgeDoubleLike {
  addUser(user: { login: string; email?: string; orgs?: string[]; orgAdmin?: string[] }): { token: string };
  addRepo(repo: Parameters<ScmTestDouble['addRepo']>[0]): unknown;
  commit(fullName: string, branch: string, files: Record<string, string>, message?: string): string;
  hooks(fullName: string): { url: string; secret: string }[];
  push(fullName: string, branch: string, url: string, options?: { secret?: string }): Promise<number>;
  unknownCalls(): readonly string[];
  fail(rule: FaultRule): void;
  faultHits(): readonly unknown[];
  close(): Promise<void>;
}

/**
 * The parts of a contract driver that are the same for every forge double: users (their token
 * never expires), repositories, commits, hooks, pushes, the clone host, and a close that expects
 * no call the double did not know. A driver spreads them and adds its provider's own.
 */
export function forgeDoubleParts(
  double: ForgeDoubleLike,
): Pick<
  ScmTestDouble,
  'addUser' | 'addRepo' | 'commit' | 'hooks' | 'sendPush' | 'cloneHost' | 'fail' | 'faultHits' | 'close'
> {
  return {
    fail: (rule) => double.fail(rule),
    faultHits: () => double.faultHits().length,
    addUser: (login, email, orgs, orgAdmin) => token(double.addUser({ login, email, orgs, orgAdmin }).token),
    addRepo: (repo) => void double.addRepo(repo),
    commit: (fullName, branch, files, message) => double.commit(fullName, branch, files, message),
    hooks: (fullName) => double.hooks(fullName),
    sendPush: (fullName, branch, url, secret) =>
      double.push(fullName, branch, url, secret === undefined ? {} : { secret }),
    cloneHost: '127.0.0.1',
    close: async () => {
      expect(double.unknownCalls()).toEqual([]);
      await double.close();
    },
  };
}

/** Plays the browser on a double's authorize page, which acts at once for `?login=`: where it redirects. */
export async function authorizeAs(url: string, login: string): Promise<URL> {
  const response = await fetch(`${url}&login=${login}`, { redirect: 'manual' });
  return new URL(response.headers.get('location') ?? '');
}

/** A token that never expires and has no refresh token, as tests give one to a provider. */
export function token(value: string): ScmToken {
  return { token: value, refresh: '', expiry: 0 };
}

/** A fetch that keeps the address of every request it passes on, for tests that count a provider's pages. */
export function recordingFetch(): { fetch: typeof fetch; urls: URL[] } {
  const urls: URL[] = [];
  const recording: typeof fetch = (input, init) => {
    urls.push(new URL(input instanceof Request ? input.url : input));
    return fetch(input, init);
  };
  return { fetch: recording, urls };
}
