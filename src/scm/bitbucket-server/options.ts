import type { KeyObject } from 'node:crypto';
import type { GitAuthOptions } from '../netrc.js';

/** What the composition root passes from the SVC_SCMF_* and SVC_GIT_* settings. */
export interface BitbucketServerOptions extends GitAuthOptions {
  /** SVC_SCMF_SERVER: the server's address, with its context path if it has one. */
  server: string;
  /** SVC_SCMF_CONSUMER_KEY: the consumer key of the application link's incoming authentication. */
  consumerKey: string;
  /** SVC_SCMF_PRIVATE_KEY, read: the RSA key whose public half the application link holds. */
  privateKey: KeyObject;
  /** SVC_SCMF_SKIP_VERIFY. */
  skipVerify: boolean;
  /** Replaces the global fetch; for tests. */
  fetch?: typeof fetch;
  /** The clock OAuth timestamps and token expiries are read from; for tests. */
  now?: () => number;
}

/** Where things are on a Bitbucket Server at `server`. */
export function bitbucketServerEndpoints(server: string) {
  const web = server.replace(/\/+$/, '');
  const oauth = `${web}/plugins/servlet/oauth`;
  return {
    web,
    requestToken: `${oauth}/request-token`,
    authorize: `${oauth}/authorize`,
    accessToken: `${oauth}/access-token`,
  };
}

/** The REST API 1.0, below the web root. */
export const API = '/rest/api/1.0';
