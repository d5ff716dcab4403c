import { SERVER } from '../kinds.js';
import { duration } from '../values/duration.js';
import { group, setting } from './define.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** The OpenID Connect tokens the server signs for jobs (`id_tokens:` of a step). */
export const serverOidc = group(
  'Server: OpenID Connect tokens for jobs',
  'The tokens steps ask for with `id_tokens:` (docs/pipelines.md, "OIDC tokens"), signed by the server with keys it keeps in the database, and verified by others against `<SVC_SERVER_PROTO>://<SVC_SERVER_HOST>/.well-known/jwks`.',
  [
    setting('SVC_OIDC_TOKEN_LIFETIME', SERVER, duration(MINUTE), {
      default: HOUR,
      addition: true,
      description:
        "svc addition: the longest a job's OpenID Connect token lives. A token is signed when a runner takes the stage and lives as long as the repository's build timeout, at most this long.",
    }),
    setting('SVC_OIDC_KEY_ROTATION', SERVER, duration(HOUR), {
      default: 7 * 24 * HOUR,
      addition: true,
      description:
        'svc addition: how long one key signs tokens before the next one takes over. Each key is published a whole period before it signs and until the last token it signed has expired (SVC_OIDC_TOKEN_LIFETIME later); servers sharing a database share the keys.',
    }),
  ],
);
