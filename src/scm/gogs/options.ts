import type { GitAuthOptions } from '../netrc.js';

/** What the composition root passes from the SVC_SCME_* and SVC_GIT_* settings. */
export interface GogsOptions extends GitAuthOptions {
  /** SVC_SCME_SERVER: the Gogs server's address; the API is at `<server>/api/v1`. */
  server: string;
  /** SVC_SCME_SKIP_VERIFY: accept any TLS certificate from the server. */
  skipVerify: boolean;
  /** The name of the access token svc creates for each user (default `svc`). */
  tokenName?: string;
  /** Replaces the global fetch; for tests. */
  fetch?: typeof fetch;
}

/** The server address without a trailing slash, and its REST API root. */
export function gogsEndpoints(server: string): { server: string; api: string } {
  const base = server.replace(/\/+$/, '');
  return { server: base, api: `${base}/api/v1` };
}
