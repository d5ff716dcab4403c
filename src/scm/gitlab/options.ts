import type { GitAuthOptions } from '../netrc.js';

/** What the composition root passes from the SVC_SCMD_* and SVC_GIT_* settings. */
export interface GitLabOptions extends GitAuthOptions {
  /** SVC_SCMD_SERVER: https://gitlab.com or a self-managed GitLab. */
  server: string;
  /** SVC_SCMD_CLIENT_ID / SVC_SCMD_CLIENT_SECRET: the OAuth application svc logs users in with. */
  clientId: string;
  clientSecret: string;
  /** SVC_SCMD_SKIP_VERIFY: accept any TLS certificate from the server. */
  skipVerify: boolean;
  /** Replaces the global fetch; for tests. */
  fetch?: typeof fetch;
}

/** The server address without a trailing slash, its REST API root and its OAuth endpoints. */
export function gitlabEndpoints(server: string) {
  const base = server.replace(/\/+$/, '');
  return {
    server: base,
    api: `${base}/api/v4`,
    authorize: `${base}/oauth/authorize`,
    token: `${base}/oauth/token`,
  };
}

/** The OAuth scope svc asks for: `api` creates hooks and posts statuses (read scopes cannot). */
export const GITLAB_SCOPE = 'api';
