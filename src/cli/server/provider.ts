import type { ServerSettings } from '../../config/index.js';
import type { ScmProvider } from '../../core/scm.js';
import { createBitbucketProvider } from '../../scm/bitbucket/index.js';
import { createGitHubProvider } from '../../scm/github/index.js';
import { createGiteaProvider } from '../../scm/gitea/index.js';
import { createGitLabProvider } from '../../scm/gitlab/index.js';
import { createGogsProvider } from '../../scm/gogs/index.js';

/** The git providers of the spec that this svc cannot talk to yet, by the setting that selects them. */
const NOT_YET: readonly { setting: keyof ServerSettings; provider: string }[] = [
  { setting: 'SVC_SCMF_CONSUMER_KEY', provider: 'Bitbucket Server (SCMF)' },
  { setting: 'SVC_SCMF_SERVER', provider: 'Bitbucket Server (SCMF)' },
];

/**
 * The git provider the settings select: Bitbucket Cloud with SVC_SCMA_CLIENT_ID, Gitea with SVC_SCMB_SERVER and its OAuth2 application, Gogs with
 * SVC_SCME_SERVER, GitLab with SVC_SCMD_CLIENT_ID, GitHub with SVC_SCMC_CLIENT_ID; none when no provider
 * is configured (the server runs; its start page says which settings enable login). A provider svc
 * does not support yet is an error, never silently ignored.
 */
export function gitProvider(
  settings: ServerSettings,
  trace: (line: string) => void = () => undefined,
): { provider: ScmProvider | undefined } | { error: string } {
  for (const { setting, provider } of NOT_YET) {
    if (settings[setting] !== null) {
      return {
        error: `${setting}: ${provider} is not supported by this version of svc yet; Bitbucket Cloud (SVC_SCMA_*), Gitea (SVC_SCMB_*), GitHub (SVC_SCMC_*), GitLab (SVC_SCMD_*) and Gogs (SVC_SCME_*) are`,
      };
    }
  }
  const git = {
    gitAlwaysAuth: settings.SVC_GIT_ALWAYS_AUTH ?? false,
    gitUsername: settings.SVC_GIT_USERNAME,
    gitPassword: settings.SVC_GIT_PASSWORD,
  };
  if (
    settings.SVC_SCMB_SERVER !== null &&
    settings.SVC_SCMB_CLIENT_ID !== null &&
    settings.SVC_SCMB_CLIENT_SECRET !== null
  ) {
    return {
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
      provider: createGogsProvider({
        server: settings.SVC_SCME_SERVER,
        skipVerify: settings.SVC_SCME_SKIP_VERIFY,
        ...git,
      }),
    };
  }
  if (settings.SVC_SCMC_CLIENT_ID === null || settings.SVC_SCMC_CLIENT_SECRET === null)
    return { provider: undefined };
  return {
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
