import type { FastifyInstance } from 'fastify';
import type { PublishedKey } from '../../core/oidc.js';
import { JOB_CLAIMS } from './claims.js';
import { ALGORITHM } from './jwt.js';
import type { OidcKeyring } from './keyring.js';

/** Where the keys are, as GitHub Actions publishes them (`<issuer>/.well-known/jwks`). */
export const JWKS_PATH = '/.well-known/jwks';
/** OpenID Connect Discovery 1.0: `<issuer>/.well-known/openid-configuration`. */
export const DISCOVERY_PATH = '/.well-known/openid-configuration';

/**
 * How long verifiers and proxies may keep the key set: keys are published a whole rotation period
 * before they sign, so a cached set knows a new key in time; the server itself reads the database
 * for it at most this often.
 */
const JWKS_MAX_AGE = 300;
const DISCOVERY_MAX_AGE = 3600;

/** What the routes need. */
export interface OidcRoutesDeps {
  readonly keyring: OidcKeyring;
  /** The issuer URL: SVC_SERVER_PROTO://SVC_SERVER_HOST, read at each request. */
  issuer(): string;
  /** Epoch milliseconds; tests pass a fake clock. */
  readonly now?: (() => number) | undefined;
}

/**
 * The public half of the jobs' OpenID Connect tokens, anonymous: the discovery document and the
 * key set (JWKS) with which anyone verifies a token svc signed.
 */
export function oidcRoutes(app: FastifyInstance, deps: OidcRoutesDeps): void {
  const now = deps.now ?? Date.now;
  let cached: { body: { keys: Record<string, string>[] }; until: number; kid: string } | undefined;
  app.get(DISCOVERY_PATH, (_request, reply) => {
    const issuer = deps.issuer();
    void reply.header('cache-control', `public, max-age=${DISCOVERY_MAX_AGE}`);
    return {
      issuer,
      jwks_uri: `${issuer}${JWKS_PATH}`,
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: [ALGORITHM],
      scopes_supported: ['openid'],
      claims_supported: [...JOB_CLAIMS],
    };
  });
  app.get(JWKS_PATH, async (_request, reply) => {
    const active = await deps.keyring.active();
    if (cached === undefined || cached.until <= now() || cached.kid !== active.key.kid) {
      const keys = await deps.keyring.published();
      cached = { body: { keys: keys.map(toJwk) }, until: now() + JWKS_MAX_AGE * 1000, kid: active.key.kid };
    }
    void reply.header('cache-control', `public, max-age=${JWKS_MAX_AGE}`);
    return cached.body;
  });
}

function toJwk(key: PublishedKey): Record<string, string> {
  return { ...key.publicJwk, kid: key.kid, alg: key.algorithm, use: 'sig' };
}
