import type { GitAuthOptions } from '../netrc.js';

/** What the composition root passes from the SVC_SCMC_* and SVC_GIT_* settings. */
export interface GitHubOptions extends GitAuthOptions {
  /** SVC_SCMC_CLIENT_ID / SVC_SCMC_CLIENT_SECRET: the OAuth app svc logs users in with. */
  clientId: string;
  clientSecret: string;
  /** SVC_SCMC_SCOPE: the OAuth scopes asked for at login. */
  scopes: string[];
  /** SVC_SCMC_SERVER: https://github.com or a GitHub Enterprise Server address. */
  server: string;
  /** SVC_SCMC_SKIP_VERIFY: accept any TLS certificate from the server. */
  skipVerify: boolean;
  /**
   * The REST API base when it is not where `server` implies (a proxy, a test double);
   * by default https://api.github.com for github.com, else `<server>/api/v3`.
   */
  apiUrl?: string;
  /** Replaces the global fetch; for tests. */
  fetch?: typeof fetch;
}

/** Where svc reaches GitHub: the web server (OAuth, hooks' links) and the REST API. */
export interface GitHubEndpoints {
  server: string;
  api: string;
  authorize: string;
  accessToken: string;
}

/**
 * The endpoints for a server address. github.com serves its API from a separate host; GitHub
 * Enterprise Server serves it under `/api/v3` of its own address.
 */
export function githubEndpoints(server: string, apiUrl?: string): GitHubEndpoints {
  const base = server.replace(/\/+$/, '');
  const api =
    apiUrl?.replace(/\/+$/, '') ?? (isGitHubDotCom(base) ? 'https://api.github.com' : `${base}/api/v3`);
  return {
    server: base,
    api,
    authorize: `${base}/login/oauth/authorize`,
    accessToken: `${base}/login/oauth/access_token`,
  };
}

function isGitHubDotCom(server: string): boolean {
  try {
    const url = new URL(server);
    return url.hostname === 'github.com' || url.hostname === 'www.github.com';
  } catch {
    return false;
  }
}
