import type { ServerSettings } from '../../config/index.js';
import type { ScmProvider } from '../../core/scm.js';
import { createBitbucketProvider } from '../../scm/bitbucket/index.js';
import { createBitbucketServerProvider } from '../../scm/bitbucket-server/index.js';
import type { GitAuthOptions } from '../../scm/netrc.js';
import { readSigningKey } from './private-key.js';
import { createGitHubProvider } from '../../scm/github/index.js';
import { createGiteaProvider } from '../../scm/gitea/index.js';
import { createGitLabProvider } from '../../scm/gitlab/index.js';
import { createGogsProvider } from '../../scm/gogs/index.js';
import { localGitProvider } from './local-git-provider.js';

/**
 * The git provider the settings select: Bitbucket Cloud with SVC_SCMA_CLIENT_ID, Gitea with
 * SVC_SCMB_SERVER and its OAuth2 application, Gogs with SVC_SCME_SERVER, GitLab with
 * SVC_SCMD_CLIENT_ID, Bitbucket Server with SVC_SCMF_SERVER and its application link, GitHub with
 * SVC_SCMC_CLIENT_ID, svc's built-in provider with SVC_SCML_ENABLED; none when no provider is configured (the server runs; its start page says
 * which settings enable login). `notes` are what the server says at start about the choice.
 */
export function gitProvider(
  settings: ServerSettings,
  trace: (line: string) => void = () => undefined,
  cwd: string = process.cwd(),
): { provider: ScmProvider | undefined; notes: string[] } | { error: string } {
  const git = {
    gitAlwaysAuth: settings.SVC_GIT_ALWAYS_AUTH ?? false,
    gitUsername: settings.SVC_GIT_USERNAME,
    gitPassword: settings.SVC_GIT_PASSWORD,
  };
  // The built-in provider (SVC_SCML_ENABLED), which refuses to go with any other.
  const local = localGitProvider(settings, git, cwd);
  if (local !== undefined) return local;
  if (settings.SVC_SCMF_SERVER !== null || settings.SVC_SCMF_CONSUMER_KEY !== null)
    return bitbucketServer(settings, git);
  if (
    settings.SVC_SCMB_SERVER !== null &&
    settings.SVC_SCMB_CLIENT_ID !== null &&
    settings.SVC_SCMB_CLIENT_SECRET !== null
  ) {
    return {
      notes: [],
      provider: createGiteaProvider({
        server: settings.SVC_SCMB_SERVER,
        clientId: settings.SVC_SCMB_CLIENT_ID,
        clientSecret: settings.SVC_SCMB_CLIENT_SECRET,
        skipVerify: settings.SVC_SCMB_SKIP_VERIFY,
        ...git,
      }),
    };
  }
  if (settings.SVC_SCMA_CLIENT_ID !== null && settings.SVC_SCMA_CLIENT_SECRET !== null) {
    return {
      notes: [],
      provider: createBitbucketProvider({
        clientId: settings.SVC_SCMA_CLIENT_ID,
        clientSecret: settings.SVC_SCMA_CLIENT_SECRET,
        server: settings.SVC_SCMA_SERVER,
        apiServer: settings.SVC_SCMA_API_SERVER,
        // SVC_SCMA_DEBUG: each step of the login exchange in the server's log, secrets redacted.
        ...(settings.SVC_SCMA_DEBUG === true ? { trace } : {}),
        ...git,
      }),
    };
  }
  if (settings.SVC_SCMD_CLIENT_ID !== null && settings.SVC_SCMD_CLIENT_SECRET !== null) {
    return {
      notes: [],
      provider: createGitLabProvider({
        server: settings.SVC_SCMD_SERVER,
        clientId: settings.SVC_SCMD_CLIENT_ID,
        clientSecret: settings.SVC_SCMD_CLIENT_SECRET,
        skipVerify: settings.SVC_SCMD_SKIP_VERIFY,
        ...git,
      }),
    };
  }
  if (settings.SVC_SCME_SERVER !== null) {
    return {
      notes: [],
      provider: createGogsProvider({
        server: settings.SVC_SCME_SERVER,
        skipVerify: settings.SVC_SCME_SKIP_VERIFY,
        ...git,
      }),
    };
  }
  if (settings.SVC_SCMC_CLIENT_ID === null || settings.SVC_SCMC_CLIENT_SECRET === null)
    return { provider: undefined, notes: [] };
  return {
    notes: [],
    provider: createGitHubProvider({
      clientId: settings.SVC_SCMC_CLIENT_ID,
      clientSecret: settings.SVC_SCMC_CLIENT_SECRET,
      scopes: [...settings.SVC_SCMC_SCOPE],
      server: settings.SVC_SCMC_SERVER,
      skipVerify: settings.SVC_SCMC_SKIP_VERIFY,
      ...git,
    }),
  };
}

/** Bitbucket Server from SVC_SCMF_*: the server, the application link's consumer key, and its key file. */
function bitbucketServer(
  settings: ServerSettings,
  git: GitAuthOptions,
): { provider: ScmProvider; notes: string[] } | { error: string } {
  const server = settings.SVC_SCMF_SERVER;
  const consumerKey = settings.SVC_SCMF_CONSUMER_KEY;
  const keyFile = settings.SVC_SCMF_PRIVATE_KEY;
  if (server === null || consumerKey === null || keyFile === null) {
    const missing = [
      server === null ? 'SVC_SCMF_SERVER' : '',
      consumerKey === null ? 'SVC_SCMF_CONSUMER_KEY' : '',
      keyFile === null ? 'SVC_SCMF_PRIVATE_KEY' : '',
    ].filter((name) => name !== '');
    return {
      error: `${missing.join(', ')}: Bitbucket Server (SCMF) needs its address, the consumer key of svc's application link and the path of its private key; ${missing.length === 1 ? 'this one is' : 'these are'} not set`,
    };
  }
  const privateKey = readSigningKey(keyFile);
  if ('error' in privateKey) return privateKey;
  const notes =
    git.gitUsername && git.gitPassword
      ? []
      : [
          'SVC_GIT_USERNAME/SVC_GIT_PASSWORD are not set: Bitbucket Server does not accept OAuth tokens for git, so private repositories cannot be cloned; set them to an account that can read every repository, with a personal access token as the password',
        ];
  return {
    notes,
    provider: createBitbucketServerProvider({
      server,
      consumerKey,
      privateKey,
      skipVerify: settings.SVC_SCMF_SKIP_VERIFY,
      ...git,
    }),
  };
}
