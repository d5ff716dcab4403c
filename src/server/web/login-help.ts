import type { ServerSettings } from '../../config/index.js';
import { publicUrl } from './address.js';
import {
  BITBUCKET_GUIDE,
  BITBUCKET_SERVER_GUIDE,
  GITEA_GUIDE,
  GITHUB_GUIDE,
  GITLAB_GUIDE,
  GOGS_GUIDE,
  type ProviderGuide,
} from './provider-guides.js';

/** The settings that say whether and how users log in. */
export type LoginSettings = Pick<
  ServerSettings,
  | 'SVC_SERVER_PROTO'
  | 'SVC_SERVER_HOST'
  | 'SVC_SCMA_CLIENT_ID'
  | 'SVC_SCMB_CLIENT_ID'
  | 'SVC_SCMB_SERVER'
  | 'SVC_SCMC_CLIENT_ID'
  | 'SVC_SCMC_SERVER'
  | 'SVC_SCMD_CLIENT_ID'
  | 'SVC_SCMD_SERVER'
  | 'SVC_SCME_SERVER'
  | 'SVC_SCMF_CONSUMER_KEY'
  | 'SVC_SCMF_SERVER'
  | 'SVC_SCML_ENABLED'
>;

/** One git provider svc can log users in with, and the settings that enable it. */
export interface ProviderHelp {
  readonly title: string;
  /** Any of these set configures the provider (as the settings rules count it). */
  readonly configuredBy: readonly (keyof LoginSettings)[];
  /** What to set, in words. */
  readonly enable: string;
  /** The setting holding the provider's address, when it has one. */
  readonly serverSetting?: keyof LoginSettings;
  /** The walkthrough of the start page. */
  readonly guide: ProviderGuide;
}

/** Every provider, most common first. */
export const PROVIDERS: readonly ProviderHelp[] = [
  {
    title: 'GitHub or GitHub Enterprise Server',
    configuredBy: ['SVC_SCMC_CLIENT_ID'],
    enable:
      'SVC_SCMC_CLIENT_ID + SVC_SCMC_CLIENT_SECRET of a GitHub OAuth app (and SVC_SCMC_SERVER for GitHub Enterprise Server)',
    serverSetting: 'SVC_SCMC_SERVER',
    guide: GITHUB_GUIDE,
  },
  {
    title: 'GitLab',
    configuredBy: ['SVC_SCMD_CLIENT_ID'],
    enable:
      'SVC_SCMD_CLIENT_ID + SVC_SCMD_CLIENT_SECRET of a GitLab application (and SVC_SCMD_SERVER for a self-managed GitLab)',
    serverSetting: 'SVC_SCMD_SERVER',
    guide: GITLAB_GUIDE,
  },
  {
    title: 'Gitea or Forgejo',
    configuredBy: ['SVC_SCMB_CLIENT_ID', 'SVC_SCMB_SERVER'],
    enable: 'SVC_SCMB_SERVER + SVC_SCMB_CLIENT_ID + SVC_SCMB_CLIENT_SECRET of a Gitea OAuth2 application',
    serverSetting: 'SVC_SCMB_SERVER',
    guide: GITEA_GUIDE,
  },
  {
    title: 'Bitbucket Cloud',
    configuredBy: ['SVC_SCMA_CLIENT_ID'],
    enable: 'SVC_SCMA_CLIENT_ID + SVC_SCMA_CLIENT_SECRET of a Bitbucket OAuth consumer',
    guide: BITBUCKET_GUIDE,
  },
  {
    title: 'Gogs',
    configuredBy: ['SVC_SCME_SERVER'],
    enable: 'SVC_SCME_SERVER (users log in with their Gogs username and password)',
    serverSetting: 'SVC_SCME_SERVER',
    guide: GOGS_GUIDE,
  },
  {
    title: 'Bitbucket Server / Data Center',
    configuredBy: ['SVC_SCMF_CONSUMER_KEY', 'SVC_SCMF_SERVER'],
    enable: 'SVC_SCMF_SERVER + SVC_SCMF_CONSUMER_KEY + SVC_SCMF_PRIVATE_KEY of an application link',
    serverSetting: 'SVC_SCMF_SERVER',
    guide: BITBUCKET_SERVER_GUIDE,
  },
];

/** The git provider the settings configure, with the setting that configures it; undefined for none. */
export function configuredProvider(
  settings: LoginSettings,
): { provider: ProviderHelp; by: string } | undefined {
  for (const provider of PROVIDERS) {
    const by = provider.configuredBy.find((name) => settings[name] !== null && settings[name] !== '');
    if (by !== undefined) return { provider, by };
  }
  return undefined;
}

/** Where the provider sends users back after login: the OAuth application's callback URL. */
export function callbackUrl(settings: LoginSettings): string {
  return publicUrl({ proto: settings.SVC_SERVER_PROTO, host: settings.SVC_SERVER_HOST }, '/login');
}

/**
 * One line on how users log in, for the server's start-up log and the start page: the configured
 * provider, or, when there is none, the settings that would enable login.
 */
export function loginHelp(settings: LoginSettings): string {
  if (settings.SVC_SCML_ENABLED === true)
    return `login: with the accounts of svc's built-in git provider (SVC_SCML_ENABLED) at ${callbackUrl(settings)}`;
  const configured = configuredProvider(settings);
  if (configured !== undefined) {
    return `login: through ${configured.provider.title} (${configured.by}) at ${callbackUrl(settings)}`;
  }
  const choices = PROVIDERS.map((provider) => `${provider.enable} for ${provider.title}`).join('; ');
  return (
    `login is not configured: no git provider is set, so only API tokens (SVC_USER_CREATE) work. ` +
    `To enable login set one of: ${choices}. The OAuth callback URL is ${callbackUrl(settings)}. See docs/settings.md.`
  );
}
