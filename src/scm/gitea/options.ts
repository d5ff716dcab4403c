import type { GitAuthOptions } from '../netrc.js';

/** What the composition root passes from the SVC_SCMB_* and SVC_GIT_* settings. */
export interface GiteaOptions extends GitAuthOptions {
  /** SVC_SCMB_SERVER: the Gitea or Forgejo address; the API is at `<server>/api/v1`. */
  server: string;
  /** SVC_SCMB_CLIENT_ID / SVC_SCMB_CLIENT_SECRET: the OAuth2 application svc logs users in with. */
  clientId: string;
  clientSecret: string;
  /** SVC_SCMB_SKIP_VERIFY: accept any TLS certificate from the server. */
  skipVerify: boolean;
  /** Replaces the global fetch; for tests. */
  fetch?: typeof fetch;
}

/** The server address without a trailing slash, its REST API root and its OAuth2 endpoints. */
export function giteaEndpoints(server: string) {
  const base = server.replace(/\/+$/, '');
  return {
    server: base,
    api: `${base}/api/v1`,
    authorize: `${base}/login/oauth/authorize`,
    accessToken: `${base}/login/oauth/access_token`,
  };
}
