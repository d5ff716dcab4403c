import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { User } from '../../core/user.js';
import { ForgeState } from '../../scm/local/forge-state.js';
import { hashPassword } from '../../scm/local/passwords.js';
import { hashApiToken } from '../auth/api-token.js';
import { apiTokenAccounts, authenticateGit } from './git-auth.js';

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('git credentials of the built-in provider', async () => {
  const state = new ForgeState(mkdtempSync(join(tmpdir(), 'svc-git-auth-')));
  const ada = state.addAccount({
    login: 'ada',
    email: '',
    passwordHash: await hashPassword('ada-password'),
    admin: false,
  });
  const providerToken = state.issueToken(ada.id);
  // svc users by API token: ada as she logged in (scmUid = her account's id), and a machine account
  // of SVC_USER_CREATE that was given the same name but is nobody's account.
  const svcUsers = new Map<string, Pick<User, 'login' | 'scmUid' | 'tokenHash' | 'active'>>([
    [
      hashApiToken('ada-api-token'),
      { login: 'ada', scmUid: String(ada.id), tokenHash: hashApiToken('ada-api-token'), active: true },
    ],
    [
      hashApiToken('namesake-token'),
      { login: 'ada', scmUid: '', tokenHash: hashApiToken('namesake-token'), active: true },
    ],
    [
      hashApiToken('inactive-token'),
      { login: 'ada', scmUid: String(ada.id), tokenHash: hashApiToken('inactive-token'), active: false },
    ],
  ]);
  const deps = {
    provider: { state },
    accountIdOfApiToken: apiTokenAccounts({
      findTokenHash: (hash: string) => Promise.resolve(svcUsers.get(hash) as User | undefined),
    }),
  };

  it('takes the password, the provider’s token or the svc API token of the account itself', async () => {
    for (const credentials of [
      basic('ada', 'ada-password'),
      basic('x', providerToken),
      basic('x', 'ada-api-token'),
    ])
      expect(await authenticateGit(credentials, deps)).toMatchObject({ login: 'ada' });
    expect(await authenticateGit(undefined, deps)).toBeUndefined();
  });

  it('refuses a namesake’s or an inactive user’s API token, a wrong password and malformed credentials', async () => {
    for (const credentials of [
      basic('ada', 'namesake-token'),
      basic('ada', 'inactive-token'),
      basic('ada', 'wrong-password'),
      basic('ada', ''),
      'Bearer ada-api-token',
    ])
      expect(await authenticateGit(credentials, deps), credentials).toBe('refused');
  });
});
