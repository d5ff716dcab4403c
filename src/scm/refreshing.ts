import { SvcError } from '../core/errors.js';
import type { GaugeSource } from '../core/gauges.js';
import type { ScmProvider, ScmToken } from '../core/scm.js';
import type { UserStore } from '../core/user.js';

/** Refreshed this long before the expiry the provider announced: a call must not start with a token about to die. */
export const REFRESH_MARGIN_MS = 60_000;

/** The provider's methods that act with a user's token (the first argument). */
const TOKEN_METHODS = [
  'currentUser',
  'organizations',
  'membership',
  'listRepos',
  'findRepo',
  'fileContents',
  'branchHead',
  'findCommit',
  'changedFiles',
  'teams',
  'findTeam',
  'createHook',
  'deleteHook',
  'setStatus',
] as const satisfies readonly (keyof ScmProvider)[];

/**
 * Keeps users' provider tokens fresh for providers whose tokens expire: before a call with a token
 * that expires within a minute, and once after a call the provider refused as UNAUTHORIZED, the
 * token is refreshed, stored in place of the old one, and the call made with the new one. Concurrent
 * calls with one old token share a single refresh (providers rotate refresh tokens: a second refresh
 * with the same one would fail).
 */
export class TokenRefresher implements GaugeSource {
  readonly #provider: ScmProvider;
  readonly #refresh: ((token: ScmToken) => Promise<ScmToken>) | undefined;
  readonly #users: Pick<UserStore, 'replaceScmToken'>;
  readonly #now: () => number;
  readonly #pending = new Map<string, Promise<ScmToken>>();
  // The newest token each old one was replaced by: callers still holding the old one (read from
  // the store before the refresh) use the new one without refreshing again.
  readonly #replaced = new Map<string, ScmToken>();

  constructor(
    provider: ScmProvider,
    users: Pick<UserStore, 'replaceScmToken'>,
    now: () => number = Date.now,
  ) {
    this.#provider = provider;
    const login = provider.login;
    this.#refresh =
      login.kind === 'oauth2' && login.refresh !== undefined ? login.refresh.bind(login) : undefined;
    this.#users = users;
    this.#now = now;
  }

  sizes(): Record<string, number> {
    return { refreshing: this.#pending.size, replaced_tokens: this.#replaced.size };
  }

  /** The token to use now: the newest one known, refreshed first when it is about to expire. */
  async fresh(token: ScmToken): Promise<ScmToken> {
    const newest = this.#replaced.get(token.token) ?? token;
    return this.#expiresSoon(newest) ? this.#renew(newest) : newest;
  }

  /** The provider, each call made with a fresh token; the provider itself when its tokens never need a refresh. */
  provider(): ScmProvider {
    const provider = this.#provider;
    if (this.#refresh === undefined) return provider;
    const wrapped = Object.create(provider) as ScmProvider;
    for (const name of TOKEN_METHODS) {
      // Called through the provider (its own `this`), with the fresh token in place of the old one.
      const method = Reflect.get(provider, name) as
        ((token: ScmToken, ...rest: unknown[]) => Promise<unknown>) | undefined;
      // An optional method the provider lacks stays absent: callers check for it.
      if (method === undefined) continue;
      Object.defineProperty(wrapped, name, {
        value: (token: ScmToken, ...rest: unknown[]) =>
          this.#call(token, (fresh) => Reflect.apply(method, provider, [fresh, ...rest])),
      });
    }
    // Clone credentials are made without a call: from the newest token known (see `fresh`).
    Object.defineProperty(wrapped, 'netrc', {
      value: (token: ScmToken, repo: Parameters<ScmProvider['netrc']>[1]) =>
        provider.netrc(this.#replaced.get(token.token) ?? token, repo),
    });
    return wrapped;
  }

  async #call<T>(token: ScmToken, run: (token: ScmToken) => Promise<T>): Promise<T> {
    const first = await this.fresh(token);
    try {
      return await run(first);
    } catch (error) {
      if (first.refresh === '' || !(error instanceof SvcError) || error.code !== 'UNAUTHORIZED') throw error;
      return run(await this.#renew(first));
    }
  }

  #renew(token: ScmToken): Promise<ScmToken> {
    const refresh = this.#refresh;
    if (refresh === undefined || token.refresh === '') return Promise.resolve(token);
    // A call that read the token before another call's refresh of it ended takes that refresh's
    // result: its refresh token is used up, a second refresh with it would log the user out.
    const replaced = this.#replaced.get(token.token);
    if (replaced !== undefined) return Promise.resolve(replaced);
    let running = this.#pending.get(token.token);
    if (running === undefined) {
      running = (async () => {
        const fresh = await refresh(token);
        await this.#users.replaceScmToken(token.token, fresh);
        this.#replaced.set(token.token, fresh);
        return fresh;
      })().finally(() => this.#pending.delete(token.token));
      this.#pending.set(token.token, running);
    }
    return running;
  }

  #expiresSoon(token: ScmToken): boolean {
    return (
      this.#refresh !== undefined &&
      token.refresh !== '' &&
      token.expiry !== 0 &&
      token.expiry - this.#now() < REFRESH_MARGIN_MS
    );
  }
}
