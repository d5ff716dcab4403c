/**
 * How to connect each git provider, step by step, for the start page: where to register svc at the
 * provider, what to type into its form, and which settings to give svc. The facts follow each
 * provider's own documentation of OAuth applications (GitHub, GitLab, Gitea, Bitbucket) and
 * application links (Bitbucket Server).
 */

/** The addresses a guide fills in: this server's own and the provider server the settings name. */
export interface GuideContext {
  /** The server's public URL, e.g. `https://ci.example.com`. */
  readonly homepage: string;
  /** Where the provider sends the user back after login. */
  readonly callback: string;
  /** The provider's server from its `_SERVER` setting; null when that setting is not set. */
  readonly server: string | null;
}

/** One provider's walkthrough: where to register and the settings that result. */
export interface ProviderGuide {
  /** Steps at the provider, each one sentence (plain text; the page escapes it). */
  readonly register: (context: GuideContext) => readonly string[];
  /** The settings to give svc, with placeholders for what the provider showed. */
  readonly settings: (context: GuideContext) => readonly string[];
}

const withoutSlash = (url: string) => url.replace(/\/+$/, '');
const orPlaceholder = (server: string | null, placeholder: string) =>
  server === null ? placeholder : withoutSlash(server);

export const GITHUB_GUIDE: ProviderGuide = {
  register: ({ homepage, callback, server }) => [
    `Open ${orPlaceholder(server, 'https://github.com')}/settings/applications/new (Settings › Developer settings › OAuth Apps › New OAuth App; for an organization's app, the organization's settings).`,
    `Application name: svc; Homepage URL: ${homepage}; Authorization callback URL: ${callback}.`,
    'Register the application, then "Generate a new client secret" and copy the client ID and the secret.',
  ],
  settings: ({ server }) => [
    'SVC_SCMC_CLIENT_ID=<the client ID>',
    'SVC_SCMC_CLIENT_SECRET=<the client secret>',
    ...(server === null || withoutSlash(server) === 'https://github.com'
      ? []
      : [`SVC_SCMC_SERVER=${withoutSlash(server)}`]),
  ],
};

export const GITLAB_GUIDE: ProviderGuide = {
  register: ({ callback, server }) => [
    `Open ${orPlaceholder(server, 'https://gitlab.com')}/-/user_settings/applications (your avatar › Edit profile › Applications; an administrator can add an instance-wide application under Admin Area › Applications).`,
    `Name: svc; Redirect URI: ${callback}; Confidential: checked; Scopes: api.`,
    'Save the application and copy its Application ID and Secret.',
  ],
  settings: ({ server }) => [
    'SVC_SCMD_CLIENT_ID=<the application ID>',
    'SVC_SCMD_CLIENT_SECRET=<the secret>',
    ...(server === null || withoutSlash(server) === 'https://gitlab.com'
      ? []
      : [`SVC_SCMD_SERVER=${withoutSlash(server)}`]),
  ],
};

export const GITEA_GUIDE: ProviderGuide = {
  register: ({ callback, server }) => [
    `Open ${orPlaceholder(server, 'https://<your Gitea or Forgejo>')}/user/settings/applications (Settings › Applications › Manage OAuth2 applications).`,
    `Application name: svc; Redirect URIs: ${callback}; Confidential client: checked.`,
    'Create the application and copy the client ID and the client secret.',
  ],
  settings: ({ server }) => [
    `SVC_SCMB_SERVER=${orPlaceholder(server, 'https://<your Gitea or Forgejo>')}`,
    'SVC_SCMB_CLIENT_ID=<the client ID>',
    'SVC_SCMB_CLIENT_SECRET=<the client secret>',
  ],
};

export const BITBUCKET_GUIDE: ProviderGuide = {
  register: ({ homepage, callback }) => [
    'Open https://bitbucket.org/<workspace>/workspace/settings/api (Workspace settings › OAuth consumers › Add consumer).',
    `Name: svc; Callback URL: ${callback}; URL: ${homepage}.`,
    'Permissions: Account: Email and Read; Workspace membership: Read; Projects: Read; Repositories: Read; Pull requests: Read; Webhooks: Read and write.',
    'Save, then open the consumer and copy its Key and Secret.',
  ],
  settings: () => ['SVC_SCMA_CLIENT_ID=<the key>', 'SVC_SCMA_CLIENT_SECRET=<the secret>'],
};

export const GOGS_GUIDE: ProviderGuide = {
  register: () => [
    'Gogs has no OAuth applications: nothing to register. Users log in to svc with their Gogs username and password; svc keeps an access token of theirs (named svc), not the password.',
  ],
  settings: ({ server }) => [`SVC_SCME_SERVER=${orPlaceholder(server, 'https://<your Gogs>')}`],
};

export const BITBUCKET_SERVER_GUIDE: ProviderGuide = {
  register: ({ homepage, server }) => [
    'Make a key pair: openssl genrsa -out svc-private.pem 2048 && openssl rsa -in svc-private.pem -pubout -out svc-public.pem',
    `Open ${orPlaceholder(server, 'https://<your Bitbucket Server>')}/plugins/servlet/applinks/listApplicationLinks (Administration › Application Links) and create a link to ${homepage}.`,
    'Incoming authentication: consumer key svc, consumer name svc, public key: the contents of svc-public.pem; leave the consumer callback URL empty (svc sends its own).',
    'Bitbucket Server does not let OAuth tokens clone: make a personal access token (repository read) for an account that can read every repository svc builds.',
  ],
  settings: ({ server }) => [
    `SVC_SCMF_SERVER=${orPlaceholder(server, 'https://<your Bitbucket Server>')}`,
    'SVC_SCMF_CONSUMER_KEY=svc',
    'SVC_SCMF_PRIVATE_KEY=/path/to/svc-private.pem',
    'SVC_GIT_USERNAME=<that account>',
    'SVC_GIT_PASSWORD=<its personal access token>',
  ],
};
