/*
 * Jobs' OpenID Connect tokens on a real server (issue 30): a build's steps get tokens that a
 * standard library (jose) verifies against the server's published key set, that a cloud-style
 * verifier accepts for the right repository only, that forks' pull requests do not get unless the
 * repository allows it (rotation: oidc-rotation.test.ts).
 */
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Build } from '../../src/core/build.js';
import type { Repo } from '../../src/core/repo.js';
import { call, enable, loginAs, tokenOf } from './client.js';
import { startHarness, type Harness } from './harness.js';
import { cloudVerifier, PIPELINE, takeStage, tokenIn } from './oidc-support.js';

describe('OIDC tokens for jobs on a real server', () => {
  let h: Harness;
  let admin: string;
  let app: Repo;
  let other: Repo;
  let commits = 0;

  async function push(slug: string, branch = 'main'): Promise<Build> {
    commits++;
    h.github.commit(slug, branch, { '.drone.yml': PIPELINE, 'n.txt': String(commits) }, `commit ${commits}`);
    expect(await h.github.push(slug, branch, `${h.url}/hook`)).toBe(200);
    return newest(slug);
  }

  async function newest(slug: string): Promise<Build> {
    const [namespace = '', name = ''] = slug.split('/');
    const repo = (await h.store.repos.findSlug(namespace, name)) as Repo;
    const build = await h.store.builds.findNumber(repo.id, repo.counter);
    if (build === undefined) throw new Error(`no build of ${slug}`);
    return build;
  }

  beforeAll(async () => {
    h = await startHarness();
    for (const login of ['boss', 'stranger']) h.github.addUser({ login });
    h.github.addRepo({ owner: 'acme', name: 'app', admins: ['boss'] });
    h.github.addRepo({ owner: 'acme', name: 'other', admins: ['boss'] });
    h.github.addRepo({ owner: 'stranger', name: 'app', admins: ['stranger'] });
    const session = await loginAs(h, 'boss');
    admin = await tokenOf(h, session);
    await enable(h, session, 'acme/app');
    await enable(h, session, 'acme/other');
    app = (await h.store.repos.findSlug('acme', 'app')) as Repo;
    other = (await h.store.repos.findSlug('acme', 'other')) as Repo;
  });
  afterAll(() => h.close());

  it('publishes the discovery document and the key set, public halves only, with cache headers', async () => {
    const discovery = await fetch(`${h.url}/.well-known/openid-configuration`);
    expect(discovery.status).toBe(200);
    expect(discovery.headers.get('cache-control')).toBe('public, max-age=3600');
    const document = (await discovery.json()) as { claims_supported: string[] };
    expect(document).toMatchObject({
      issuer: h.url,
      jwks_uri: `${h.url}/.well-known/jwks`,
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
    });
    for (const claim of ['repository', 'repository_id', 'ref', 'sha', 'step', 'fork'])
      expect(document.claims_supported).toContain(claim);
    const jwks = await fetch(`${h.url}/.well-known/jwks`);
    expect(jwks.headers.get('cache-control')).toBe('public, max-age=300');
    const { keys } = (await jwks.json()) as { keys: Record<string, string>[] };
    expect(keys).toHaveLength(2); // this period's key and the next one's
    for (const key of keys) {
      expect(Object.keys(key).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
      expect(key).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    }
  });

  it('gives a pushed build’s steps tokens that jose verifies against the published key set', async () => {
    const build = await push('acme/app');
    const details = await takeStage(h, build);
    expect(details.id_tokens.map((token) => [token.step, token.name])).toEqual([
      ['upload', 'SVC_ID_TOKEN'],
      ['upload', 'VAULT_ID_TOKEN'],
    ]);
    const keys = createRemoteJWKSet(new URL(`${h.url}/.well-known/jwks`));
    const token = tokenIn(details, 'upload', 'SVC_ID_TOKEN');
    const { payload, protectedHeader } = await jwtVerify(token, keys, {
      issuer: h.url,
      audience: 'sts.example.com',
    });
    expect(protectedHeader).toMatchObject({ alg: 'RS256', typ: 'JWT' });
    expect(payload).toMatchObject({
      iss: h.url,
      sub: 'repo:acme/app:ref:refs/heads/main',
      aud: 'sts.example.com',
      repository: 'acme/app',
      repository_id: app.uid,
      repository_owner: 'acme',
      ref: 'refs/heads/main',
      ref_type: 'branch',
      event: 'push',
      sha: build.after,
      build_number: build.number,
      build_id: build.id,
      pipeline: 'deploy',
      step: 'upload',
      trusted: false,
      fork: false,
      deploy_target: '',
    });
    expect(build.after).toMatch(/^[0-9a-f]{40}$/);
    // The repository's build timeout (60 minutes), within SVC_OIDC_TOKEN_LIFETIME (1 hour).
    expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(3600);
    expect(payload.nbf).toBe(payload.iat);
    const vault = await jwtVerify(tokenIn(details, 'upload', 'VAULT_ID_TOKEN'), keys, { audience: 'vault' });
    expect(vault.payload.aud).toEqual(['https://vault.example.com', 'vault']);
    expect(vault.payload.jti).not.toBe(payload.jti);
  });

  it('is accepted by a verifier bound to its repository and refused by one bound to another', async () => {
    const forApp = tokenIn(await takeStage(h, await push('acme/app')), 'upload', 'SVC_ID_TOKEN');
    const forOther = tokenIn(await takeStage(h, await push('acme/other')), 'upload', 'SVC_ID_TOKEN');
    const appRole = await cloudVerifier(h.url, 'sts.example.com', {
      repository: 'acme/app',
      repository_id: app.uid,
      sub: 'repo:acme/app:ref:refs/heads/main',
    });
    expect(await appRole(forApp)).toBe('accepted');
    expect(await appRole(forOther)).toBe('condition repository: "acme/other"');
    const otherRole = await cloudVerifier(h.url, 'sts.example.com', { repository_id: other.uid });
    expect(await otherRole(forOther)).toBe('accepted');
    expect(await otherRole(forApp)).toMatch(/^condition repository_id/);

    // Another audience, or claims changed after signing, are refused before any condition.
    const vaultRole = await cloudVerifier(h.url, 'https://vault.example.com', { repository: 'acme/app' });
    expect(await vaultRole(forApp)).toBe('ERR_JWT_CLAIM_VALIDATION_FAILED');
    const [header, , signature] = forOther.split('.');
    const claims = { ...decodeJwt(forOther), repository: 'acme/app', repository_id: app.uid };
    const forged = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
    expect(await appRole(forged)).toBe('ERR_JWS_SIGNATURE_VERIFICATION_FAILED');
  });

  it('gives a fork’s pull request no token unless the repository allows it', async () => {
    const patch = (body: Record<string, unknown>) =>
      call(h, '/api/repos/acme/app', { method: 'PATCH', token: admin, body });
    expect((await patch({ approval: 'none' })).status).toBe(200);
    const pullRequest = async (): Promise<Build> => {
      commits++;
      h.github.commit('stranger/app', 'patch', { '.drone.yml': PIPELINE, 'n.txt': String(commits) }, 'patch');
      const answer = await h.github.pullRequest('acme/app', 'patch', `${h.url}/hook`, {
        fork: 'stranger/app',
      });
      expect(answer.status).toBe(200);
      return newest('acme/app');
    };

    const first = await pullRequest();
    expect(first).toMatchObject({ event: 'pull_request', sourceRepo: 'stranger/app', status: 'pending' });
    expect((await takeStage(h, first)).id_tokens).toEqual([]);

    const allowed = await patch({ fork_id_tokens: true });
    expect(allowed.json).toMatchObject({ fork_id_tokens: true });
    const second = await pullRequest();
    const token = tokenIn(await takeStage(h, second), 'upload', 'SVC_ID_TOKEN');
    const keys = createRemoteJWKSet(new URL(`${h.url}/.well-known/jwks`));
    const { payload } = await jwtVerify(token, keys, { issuer: h.url, audience: 'sts.example.com' });
    expect(payload).toMatchObject({
      sub: 'repo:acme/app:pull_request',
      fork: true,
      event: 'pull_request',
      ref_type: 'pull_request',
      repository: 'acme/app',
    });
    // A verifier that pins the branch refuses it.
    const mainOnly = await cloudVerifier(h.url, 'sts.example.com', {
      sub: 'repo:acme/app:ref:refs/heads/main',
    });
    expect(await mainOnly(token)).toBe('condition sub: "repo:acme/app:pull_request"');
    expect((await patch({ fork_id_tokens: false, approval: 'forks' })).status).toBe(200);
  });
});
