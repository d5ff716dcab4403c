/*
 * Jobs' OpenID Connect tokens on a real server (issue 30): a build's steps get tokens that a
 * standard library (jose) verifies against the server's published key set, that a cloud-style
 * verifier accepts for the right repository only, that forks' pull requests do not get unless the
 * repository allows it, and whose keys rotate without breaking tokens already handed out.
 */
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Build } from '../../src/core/build.js';
import type { Repo } from '../../src/core/repo.js';
import type { WireDetails } from '../../src/runner/client/wire/index.js';
import { call, enable, loginAs, tokenOf } from './client.js';
import { RPC_SECRET, startHarness, type Harness } from './harness.js';

const PIPELINE = `kind: pipeline
type: docker
name: deploy
steps:
- name: upload
  image: busybox
  commands: [./upload.sh]
  id_tokens:
    SVC_ID_TOKEN:
      aud: sts.example.com
    VAULT_ID_TOKEN:
      aud: [https://vault.example.com, vault]
- name: test
  image: busybox
  commands: [true]
`;

/** The runner protocol's answer for the build's first stage, taken as a runner takes it. */
async function takeStage(h: Harness, build: Build): Promise<WireDetails> {
  const [stage] = await h.store.stages.list(build.id);
  const rpc = (method: string, path: string) =>
    fetch(`${h.url}${path}`, { method, headers: { 'x-svc-token': RPC_SECRET } });
  expect((await rpc('POST', `/rpc/v2/stage/${stage?.id}?machine=runner-1`)).status).toBe(200);
  const details = await rpc('GET', `/rpc/v2/stage/${stage?.id}`);
  expect(details.status).toBe(200);
  return (await details.json()) as WireDetails;
}

/** The token of `name` for `step` among the stage's. */
function tokenIn(details: WireDetails, step: string, name: string): string {
  const found = details.id_tokens.find((token) => token.step === step && token.name === name);
  if (found === undefined) throw new Error(`no token ${name} for step ${step}`);
  return found.data;
}

/**
 * What a cloud's workload identity federation does with a token (AWS STS' AssumeRoleWithWebIdentity,
 * GCP's workload identity pools): discover the issuer's keys from its URL alone, check signature,
 * issuer, audience and lifetime, then the trust policy's conditions on the claims. Answers
 * `accepted` or why not.
 */
async function cloudVerifier(
  issuer: string,
  audience: string,
  conditions: Readonly<Record<string, unknown>>,
): Promise<(token: string) => Promise<string>> {
  const discovery = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as {
    issuer: string;
    jwks_uri: string;
    id_token_signing_alg_values_supported: string[];
  };
  if (discovery.issuer !== issuer) throw new Error(`the discovery document names ${discovery.issuer}`);
  const keys = createRemoteJWKSet(new URL(discovery.jwks_uri));
  return async (token) => {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer,
        audience,
        algorithms: discovery.id_token_signing_alg_values_supported,
      }));
    } catch (error) {
      return (error as { code?: string }).code ?? String(error);
    }
    for (const [claim, value] of Object.entries(conditions)) {
      if (payload[claim] !== value) return `condition ${claim}: ${JSON.stringify(payload[claim])}`;
    }
    return 'accepted';
  };
}

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
