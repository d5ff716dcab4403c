/*
 * Key rotation of jobs' OpenID Connect tokens on a real server (issue 30), with a fake clock: the
 * next key is published a period ahead, and an old one stays published until its tokens expired.
 */
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Build } from '../../src/core/build.js';
import type { Repo } from '../../src/core/repo.js';
import { enable, loginAs } from './client.js';
import { startHarness, type Harness } from './harness.js';
import { PIPELINE, takeStage, tokenIn } from './oidc-support.js';

describe('OIDC key rotation (SVC_OIDC_KEY_ROTATION) on a real server', () => {
  const DAY = 24 * 3_600_000;
  const BOUNDARY = 20_500 * DAY;
  let now = BOUNDARY - 10 * 60_000;
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({ oidc: { rotation: DAY, maxLifetime: 3_600_000, now: () => now } });
    h.github.addUser({ login: 'boss' });
    h.github.addRepo({ owner: 'acme', name: 'app', admins: ['boss'] });
    await enable(h, await loginAs(h, 'boss'), 'acme/app');
  });
  afterAll(() => h.close());

  async function token(): Promise<string> {
    h.github.commit('acme/app', 'main', { '.drone.yml': PIPELINE, 'n.txt': String(now) }, 'commit');
    expect(await h.github.push('acme/app', 'main', `${h.url}/hook`)).toBe(200);
    const repo = (await h.store.repos.findSlug('acme', 'app')) as Repo;
    const build = (await h.store.builds.findNumber(repo.id, repo.counter)) as Build;
    return tokenIn(await takeStage(h, build), 'upload', 'SVC_ID_TOKEN');
  }

  const published = async () =>
    ((await (await fetch(`${h.url}/.well-known/jwks`)).json()) as { keys: { kid: string }[] }).keys.map(
      (key) => key.kid,
    );
  /** Verifies as a verifier would at the server's (fake) time, with the key set published now. */
  const verify = async (jwt: string) =>
    jwtVerify(jwt, createRemoteJWKSet(new URL(`${h.url}/.well-known/jwks`)), {
      issuer: h.url,
      audience: 'sts.example.com',
      currentDate: new Date(now),
    });

  it('signs with the next key after the boundary, published ahead; keeps the old one until its tokens expired', async () => {
    const before = await token();
    const oldKid = decodeProtectedHeader(before).kid;
    const ahead = await published();
    expect(ahead).toHaveLength(2);
    expect(ahead).toContain(oldKid);
    const nextKid = ahead.find((kid) => kid !== oldKid);

    now = BOUNDARY + 20 * 60_000;
    const after = await token();
    expect(decodeProtectedHeader(after).kid).toBe(nextKid);
    expect(await published()).toEqual(expect.arrayContaining([oldKid, nextKid]));
    // The token signed before the rotation still verifies (it lives until BOUNDARY + 50 minutes).
    expect((await verify(before)).payload.repository).toBe('acme/app');
    expect((await verify(after)).payload.repository).toBe('acme/app');

    // Once no token the old key signed can be valid (plus five minutes' clock leeway), it is gone.
    now = BOUNDARY + 3_600_000 + 5 * 60_000 + 1;
    expect(await published()).not.toContain(oldKid);
    expect(await published()).toContain(nextKid);
    await expect(verify(before)).rejects.toMatchObject({ code: 'ERR_JWKS_NO_MATCHING_KEY' });
  });
});
