import { SERVER } from '../kinds.js';
import { list } from '../values/collections.js';
import { filePath } from '../values/path.js';
import { httpUrl } from '../values/network.js';
import { boolean, text } from '../values/scalars.js';
import { group, setting } from './define.js';

const CLIENT_ID = text('the OAuth client id of the OAuth application');
const CLIENT_SECRET = text('the OAuth client secret of the OAuth application');

/** The git provider the server logs users in with; exactly one may be configured. */
export const serverScm = group(
  'Server: git provider',
  'How the server talks to its git provider. Configure exactly one provider: SCMA (Bitbucket Cloud), SCMB (Gitea or Forgejo), SCMC (GitHub or GitHub Enterprise Server), SCMD (GitLab), SCME (Gogs) or SCMF (Bitbucket Server / Data Center).',
  [
    setting('SVC_SCMA_CLIENT_ID', SERVER, CLIENT_ID, {
      description:
        'OAuth client id for SCMA (Bitbucket Cloud). Configures SCMA as the git provider; needs SVC_SCMA_CLIENT_SECRET.',
    }),
    setting('SVC_SCMA_CLIENT_SECRET', SERVER, CLIENT_SECRET, {
      secret: true,
      description: 'OAuth client secret for SCMA (Bitbucket Cloud); needs SVC_SCMA_CLIENT_ID.',
    }),
    setting('SVC_SCMA_DEBUG', SERVER, boolean, {
      description:
        'Logs the SCMA (Bitbucket Cloud) authentication exchange in detail, to troubleshoot logins while installing.',
    }),
    setting('SVC_SCMA_SERVER', SERVER, httpUrl('https://bitbucket.example.com'), {
      default: 'https://bitbucket.org',
      addition: true,
      description:
        'svc addition: the address of SCMA (Bitbucket Cloud) for the login (OAuth 2 at <server>/site/oauth2/…): https://bitbucket.org, or a proxy or a test server in its place.',
    }),
    setting('SVC_SCMA_API_SERVER', SERVER, httpUrl('https://api.bitbucket.example.com'), {
      default: 'https://api.bitbucket.org',
      addition: true,
      description:
        'svc addition: the address of the SCMA (Bitbucket Cloud) REST API (at <api>/2.0/…): https://api.bitbucket.org, or a proxy or a test server in its place.',
    }),
    setting('SVC_SCMB_CLIENT_ID', SERVER, CLIENT_ID, {
      description:
        'OAuth client id for SCMB (Gitea or Forgejo). Configures SCMB as the git provider; needs SVC_SCMB_CLIENT_SECRET.',
    }),
    setting('SVC_SCMB_CLIENT_SECRET', SERVER, CLIENT_SECRET, {
      secret: true,
      description: 'OAuth client secret for SCMB (Gitea or Forgejo); needs SVC_SCMB_CLIENT_ID.',
    }),
    setting('SVC_SCMB_SERVER', SERVER, httpUrl('https://gitea.example.com'), {
      description:
        'Address of the SCMB (Gitea or Forgejo) server. Setting it configures SCMB as the git provider.',
    }),
    setting('SVC_SCMB_SKIP_VERIFY', SERVER, boolean, {
      default: false,
      description:
        'Skips TLS certificate verification towards the SCMB server. Unsafe; for self-signed test setups.',
    }),
    setting('SVC_SCMC_CLIENT_ID', SERVER, CLIENT_ID, {
      description:
        'OAuth client id for SCMC (GitHub or GitHub Enterprise Server). Configures SCMC as the git provider; needs SVC_SCMC_CLIENT_SECRET.',
    }),
    setting('SVC_SCMC_CLIENT_SECRET', SERVER, CLIENT_SECRET, {
      secret: true,
      description:
        'OAuth client secret for SCMC (GitHub or GitHub Enterprise Server); needs SVC_SCMC_CLIENT_ID.',
    }),
    setting('SVC_SCMC_SCOPE', SERVER, list(), {
      default: ['repo', 'repo:status', 'user:email', 'read:org'],
      description:
        'The OAuth scopes svc requests from SCMC (GitHub). Keep the default: svc needs these scopes to list repositories, post statuses and check organization membership.',
    }),
    setting('SVC_SCMC_SERVER', SERVER, httpUrl('https://github.example.com'), {
      default: 'https://github.com',
      description:
        'Address of the SCMC server: https://github.com (API at https://api.github.com) or a GitHub Enterprise Server address (API at <server>/api/v3).',
    }),
    setting('SVC_SCMC_SKIP_VERIFY', SERVER, boolean, {
      default: false,
      description: 'Skips TLS certificate verification towards the SCMC server. Unsafe.',
    }),
    setting('SVC_SCMD_CLIENT_ID', SERVER, CLIENT_ID, {
      description:
        'OAuth client id for SCMD (GitLab). Configures SCMD as the git provider; needs SVC_SCMD_CLIENT_SECRET.',
    }),
    setting('SVC_SCMD_CLIENT_SECRET', SERVER, CLIENT_SECRET, {
      secret: true,
      description: 'OAuth client secret for SCMD (GitLab); needs SVC_SCMD_CLIENT_ID.',
    }),
    setting('SVC_SCMD_SERVER', SERVER, httpUrl('https://gitlab.example.com'), {
      default: 'https://gitlab.com',
      description: 'Address of the SCMD (GitLab) server: https://gitlab.com or a self-managed GitLab.',
    }),
    setting('SVC_SCMD_SKIP_VERIFY', SERVER, boolean, {
      default: false,
      description: 'Skips TLS certificate verification towards the SCMD server. Unsafe.',
    }),
    setting('SVC_SCME_SERVER', SERVER, httpUrl('https://gogs.example.com'), {
      description:
        'Address of the SCME (Gogs) server. Setting it configures SCME as the git provider; users log in with their Gogs username and password.',
    }),
    setting('SVC_SCME_SKIP_VERIFY', SERVER, boolean, {
      default: false,
      description: 'Skips TLS certificate verification towards the SCME server. Unsafe.',
    }),
    setting('SVC_SCMF_CONSUMER_KEY', SERVER, text('the consumer key of the application link'), {
      description:
        'OAuth 1.0a consumer key for SCMF (Bitbucket Server / Data Center). Configures SCMF as the git provider; needs SVC_SCMF_PRIVATE_KEY and SVC_SCMF_SERVER.',
    }),
    setting('SVC_SCMF_PRIVATE_KEY', SERVER, filePath, {
      description:
        'Path of the RSA private key file that signs SCMF OAuth requests (RSA-SHA1). In a container, mount the file as a volume and give the path inside.',
    }),
    setting('SVC_SCMF_SERVER', SERVER, httpUrl('https://bitbucket.example.com'), {
      description:
        'Address of the SCMF (Bitbucket Server / Data Center) server. Setting it configures SCMF as the git provider.',
    }),
    setting('SVC_SCMF_SKIP_VERIFY', SERVER, boolean, {
      default: false,
      description: 'Skips TLS certificate verification towards the SCMF server. Unsafe.',
    }),
    setting('SVC_GIT_ALWAYS_AUTH', SERVER, boolean, {
      description:
        'Gives clone credentials to steps even for public repositories. Needed only when the git provider runs in private mode.',
    }),
    setting('SVC_GIT_USERNAME', SERVER, text(), {
      description:
        "Username used to clone private repositories instead of the repository owner's provider login.",
    }),
    setting('SVC_GIT_PASSWORD', SERVER, text(), {
      secret: true,
      description:
        "Password used to clone private repositories instead of the repository owner's provider token.",
    }),
    setting('SVC_STATUS_DISABLED', SERVER, boolean, {
      default: false,
      description:
        "When true, the server does not report build states to the git provider's commit status API.",
    }),
    setting('SVC_STATUS_NAME', SERVER, text('the name (context) of the commit status'), {
      default: 'continuous-integration/svc',
      description:
        "The name (context) under which build states appear in the git provider's commit statuses, followed by the event as Drone does (`/push`, `/pr`, `/tag`, `/promote/<target>`).",
    }),
  ],
);
