import { describe, expect, it } from 'vitest';
import { SvcError } from '../core/errors.js';
import type { ScmProvider, ScmToken, ScmAccount } from '../core/scm.js';
import { TokenRefresher } from './refreshing.js';

const OLD: ScmToken = { token: 'T1', refresh: 'R1', expiry: 0 };

/**
 * A provider whose refresh tokens work once (as GitLab's and Bitbucket's rotate), whose `T1` has
 * expired, and whose calls with `T1` answer UNAUTHORIZED when `gate` lets them.
 */
function rotatingProvider(gate: Promise<void>[]) {
  const used = new Set<string>();
  const refreshes: string[] = [];
  let calls = 0;
  const provider = {
    name: 'Forge',
    login: {
      kind: 'oauth2',
      refresh: (token: ScmToken): Promise<ScmToken> => {
        refreshes.push(token.refresh);
        if (used.has(token.refresh)) return Promise.reject(new SvcError('UNAUTHORIZED', 'invalid_grant'));
        used.add(token.refresh);
        return Promise.resolve({ token: 'T2', refresh: 'R2', expiry: 0 });
      },
    },
    async currentUser(token: ScmToken): Promise<Pick<ScmAccount, 'login'>> {
      const wait = gate[calls++];
      if (token.token !== 'T1') return { login: 'alice' };
      await wait;
      throw new SvcError('UNAUTHORIZED', 'token expired');
    },
  };
  return { provider: provider as unknown as ScmProvider, refreshes };
}

describe('TokenRefresher', () => {
  it('gives a call that held the old token through another call’s refresh the new token, refreshing once', async () => {
    let open = () => undefined as void;
    const slow = new Promise<void>((resolve) => (open = resolve));
    const { provider, refreshes } = rotatingProvider([slow, Promise.resolve()]);
    const stored: string[] = [];
    const users = {
      replaceScmToken: (old: string, fresh: ScmToken) => {
        stored.push(`${old}→${fresh.token}`);
        return Promise.resolve(1);
      },
    };
    const wrapped = new TokenRefresher(provider, users).provider();
    // B reads T1 and waits for its answer; meanwhile A is refused, refreshes and succeeds.
    const b = wrapped.currentUser(OLD);
    await expect(wrapped.currentUser(OLD)).resolves.toEqual({ login: 'alice' });
    // Only now is B refused: the refresh it would start with R1 would be refused (R1 is used up).
    open();
    await expect(b).resolves.toEqual({ login: 'alice' });
    expect(refreshes).toEqual(['R1']);
    expect(stored).toEqual(['T1→T2']);
  });

  it('keeps the stored token when the refresh fails, so a later call can refresh with it', async () => {
    let fail = true;
    const { provider } = rotatingProvider([]);
    const login = (provider as unknown as { login: { refresh: (t: ScmToken) => Promise<ScmToken> } }).login;
    const real = login.refresh;
    login.refresh = (token) =>
      fail
        ? Promise.reject(new SvcError('INTERNAL', 'Forge POST /oauth/token: HTTP 503 (after 3 attempts)'))
        : real(token);
    const stored: string[] = [];
    const users = {
      replaceScmToken: (old: string) => {
        stored.push(old);
        return Promise.resolve(1);
      },
    };
    const wrapped = new TokenRefresher(provider, users).provider();
    await expect(wrapped.currentUser(OLD)).rejects.toMatchObject({ code: 'INTERNAL' });
    expect(stored).toEqual([]);
    fail = false;
    await expect(wrapped.currentUser(OLD)).resolves.toEqual({ login: 'alice' });
    expect(stored).toEqual(['T1']);
  });
});
