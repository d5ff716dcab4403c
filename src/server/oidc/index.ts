/** OpenID Connect tokens for jobs (`id_tokens:` of a step): keys, signing, discovery. docs/pipelines.md. */
export { OidcKeyring, CLOCK_LEEWAY, type KeyringOptions, type ActiveKey } from './keyring.js';
export { IdTokenIssuer, type IssuedToken, type IssuerOptions } from './issuer.js';
export { oidcRoutes, DISCOVERY_PATH, JWKS_PATH, type OidcRoutesDeps } from './routes.js';
export { JOB_CLAIMS, jobClaims, type JobFacts, type TokenFacts } from './claims.js';
export { ALGORITHM, generateKeyMaterial, signJwt, thumbprint, type KeyMaterial } from './jwt.js';
