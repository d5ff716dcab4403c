import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../core/store.js';
import { openStore } from '../../store/index.js';
import { hashApiToken } from '../auth/api-token.js';
import { seedUser } from './seed-user.js';

const TOKEN = '0123456789abcdef0123456789abcdef';

describe('seedUser (SVC_USER_CREATE)', () => {
  let store: Store;
  beforeEach(async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'svc-seed-')), 'svc.sqlite');
    store = await openStore({ datasource: { driver: 'embedded_sql', path } });
  });
  afterEach(() => store.close());

  it('creates a machine account with its token, stored as its hash', async () => {
    const user = await seedUser(store.users, { username: 'robot', machine: true, admin: true, token: TOKEN });
    const tokenHash = hashApiToken(TOKEN);
    expect(user).toMatchObject({ login: 'robot', machine: true, admin: true, active: true, tokenHash });
    expect(await store.users.findTokenHash(tokenHash)).toMatchObject({ login: 'robot' });
  });

  it('gives a person without a token a random one, which nobody sees', async () => {
    const user = await seedUser(store.users, {
      username: 'octocat',
      machine: false,
      admin: true,
      token: null,
    });
    expect(user.tokenHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('is idempotent across restarts and brings a changed setting in line', async () => {
    const first = await seedUser(store.users, {
      username: 'robot',
      machine: true,
      admin: false,
      token: TOKEN,
    });
    const again = await seedUser(store.users, {
      username: 'robot',
      machine: true,
      admin: false,
      token: TOKEN,
    });
    expect(again).toEqual(first);
    const rotated = 'fedcba9876543210fedcba9876543210';
    const changed = await seedUser(store.users, {
      username: 'robot',
      machine: true,
      admin: true,
      token: rotated,
    });
    expect(changed).toMatchObject({ id: first.id, admin: true, tokenHash: hashApiToken(rotated) });
    expect(await store.users.findTokenHash(hashApiToken(TOKEN))).toBeUndefined();
    expect(await store.users.count()).toBe(1);
  });
});
