/*
 * The six git providers as the webhook tests drive them: each one's double (test/doubles/) and
 * svc's adapter talking to it, with the headers its deliveries carry their id and signature in.
 */
import { createPrivateKey } from 'node:crypto';
import type { ScmProvider } from '../../../src/core/scm.js';
import { createBitbucketProvider } from '../../../src/scm/bitbucket/index.js';
import { createBitbucketServerProvider } from '../../../src/scm/bitbucket-server/index.js';
import { createGiteaProvider } from '../../../src/scm/gitea/index.js';
import { createGitHubProvider } from '../../../src/scm/github/index.js';
import { createGitLabProvider } from '../../../src/scm/gitlab/index.js';
import { createGogsProvider } from '../../../src/scm/gogs/index.js';
import type { ForgeDoubleLike } from '../../../src/scm/provider-harness.case.js';
import { startBitbucketDouble } from '../../doubles/bitbucket/index.js';
import { startBitbucketServerDouble } from '../../doubles/bitbucket-server/index.js';
import { startGiteaDouble } from '../../doubles/gitea/index.js';
import { startGitHubDouble } from '../../doubles/github/index.js';
import { startGitLabDouble } from '../../doubles/gitlab/index.js';
import { startGogsDouble } from '../../doubles/gogs/index.js';

export interface Forge {
  name: string;
  /** The header the provider names each delivery in (docs/webhooks.md). */
  deliveryHeader: string;
  /** The header its signature (GitLab: its secret token) travels in. */
  signatureHeader: string;
  /**
   * False for GitLab, which sends the hook's secret token as it is instead of signing the body:
   * whoever captured one delivery can send any body (docs/webhooks.md).
   */
  signsBody: boolean;
  start(): Promise<{ double: ForgeDoubleLike; provider: ScmProvider }>;
}

const noGit = { skipVerify: false, gitAlwaysAuth: false, gitUsername: null, gitPassword: null };

export const FORGES: readonly Forge[] = [
  {
    name: 'GitHub',
    deliveryHeader: 'x-github-delivery',
    signatureHeader: 'x-hub-signature-256',
    signsBody: true,
    async start() {
      const double = await startGitHubDouble();
      const provider = createGitHubProvider({
        ...noGit,
        clientId: double.clientId,
        clientSecret: double.clientSecret,
        scopes: ['repo'],
        server: double.url,
        apiUrl: double.apiUrl,
      });
      return { double, provider };
    },
  },
  {
    name: 'GitLab',
    deliveryHeader: 'idempotency-key',
    signatureHeader: 'x-gitlab-token',
    signsBody: false,
    async start() {
      const double = await startGitLabDouble();
      const provider = createGitLabProvider({
        ...noGit,
        server: double.url,
        clientId: double.clientId,
        clientSecret: double.clientSecret,
      });
      return { double, provider };
    },
  },
  {
    name: 'Gitea',
    deliveryHeader: 'x-gitea-delivery',
    signatureHeader: 'x-gitea-signature',
    signsBody: true,
    async start() {
      const double = await startGiteaDouble();
      const provider = createGiteaProvider({
        ...noGit,
        server: double.url,
        clientId: double.clientId,
        clientSecret: double.clientSecret,
      });
      return { double, provider };
    },
  },
  {
    name: 'Gogs',
    deliveryHeader: 'x-gogs-delivery',
    signatureHeader: 'x-gogs-signature',
    signsBody: true,
    async start() {
      const double = await startGogsDouble();
      return { double, provider: createGogsProvider({ ...noGit, server: double.url }) };
    },
  },
  {
    name: 'Bitbucket Cloud',
    deliveryHeader: 'x-request-uuid',
    signatureHeader: 'x-hub-signature',
    signsBody: true,
    async start() {
      const double = await startBitbucketDouble();
      const provider = createBitbucketProvider({
        ...noGit,
        clientId: double.key,
        clientSecret: double.secret,
        server: double.url,
        apiServer: double.url,
      });
      return { double, provider };
    },
  },
  {
    name: 'Bitbucket Server',
    deliveryHeader: 'x-request-id',
    signatureHeader: 'x-hub-signature',
    signsBody: true,
    async start() {
      const double = await startBitbucketServerDouble();
      const provider = createBitbucketServerProvider({
        ...noGit,
        server: double.url,
        consumerKey: double.consumerKey,
        privateKey: createPrivateKey(double.privateKeyPem),
      });
      return { double, provider };
    },
  },
];
