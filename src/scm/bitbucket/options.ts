import type { GitAuthOptions } from '../netrc.js';

/** What the composition root passes from the SVC_SCMA_* and SVC_GIT_* settings. */
export interface BitbucketOptions extends GitAuthOptions {
  /** SVC_SCMA_CLIENT_ID / SVC_SCMA_CLIENT_SECRET: the OAuth consumer's key and secret. */
  clientId: string;
  clientSecret: string;
  /** SVC_SCMA_SERVER (svc addition): where OAuth is, `https://bitbucket.org`. */
  server: string;
  /** SVC_SCMA_API_SERVER (svc addition): where the REST API is, `https://api.bitbucket.org`. */
  apiServer: string;
  /** SVC_SCMA_DEBUG: traces the login exchange (secrets redacted) through this function. */
  trace?: ((line: string) => void) | undefined;
  /** Replaces the global fetch; for tests. */
  fetch?: typeof fetch;
}

/** The OAuth endpoints and the REST root of the settings' addresses. */
export function bitbucketEndpoints(server: string, apiServer: string) {
  const web = server.replace(/\/+$/, '');
  return {
    web,
    api: `${apiServer.replace(/\/+$/, '')}/2.0`,
    authorize: `${web}/site/oauth2/authorize`,
    token: `${web}/site/oauth2/access_token`,
  };
}
