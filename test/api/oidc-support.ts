/*
 * Test support for jobs' OpenID Connect tokens: a pipeline asking for them, a runner taking its
 * stage, and a cloud's verifier.
 */
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { expect } from 'vitest';
import type { Build } from '../../src/core/build.js';
import type { WireDetails } from '../../src/runner/client/wire/index.js';
import { RPC_SECRET, type Harness } from './harness.js';

/** Step `upload` asks for two tokens; step `test` for none. */
export const PIPELINE = `kind: pipeline
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
export async function takeStage(h: Harness, build: Build): Promise<WireDetails> {
  const [stage] = await h.store.stages.list(build.id);
  const rpc = (method: string, path: string) =>
    fetch(`${h.url}${path}`, { method, headers: { 'x-svc-token': RPC_SECRET } });
  expect((await rpc('POST', `/rpc/v2/stage/${stage?.id}?machine=runner-1`)).status).toBe(200);
  const details = await rpc('GET', `/rpc/v2/stage/${stage?.id}`);
  expect(details.status).toBe(200);
  return (await details.json()) as WireDetails;
}

/** The token of `name` for `step` among the stage's. */
export function tokenIn(details: WireDetails, step: string, name: string): string {
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
export async function cloudVerifier(
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
