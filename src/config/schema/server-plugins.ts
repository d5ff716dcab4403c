import { SERVER } from '../kinds.js';
import { list } from '../values/collections.js';
import { httpUrlEntry, webhookEvent } from '../values/entries.js';
import { httpUrl } from '../values/network.js';
import { filePath } from '../values/path.js';
import { boolean, text } from '../values/scalars.js';
import { group, setting } from './define.js';

const SIGNING_SECRET = text('a shared secret, the same value as the receiver holds');

/** Conversion and validation plugins, and the built-in template languages. */
export const serverConversion = group(
  'Server: configuration conversion and validation',
  "Plugins the server calls to convert or validate pipeline files, and the template languages it runs itself. Plugin requests carry an HTTP signature (hmac-sha256) made with the plugin's secret.",
  [
    setting('SVC_CONVERT_PLUGIN_ENDPOINT', SERVER, httpUrl('https://convert.example.com'), {
      description:
        'Address of a conversion plugin, which may rewrite or generate pipeline files before they are parsed.',
    }),
    setting('SVC_CONVERT_PLUGIN_EXTENSION', SERVER, text('a file extension such as .jsonnet'), {
      description:
        'When set, only pipeline files with this extension are sent to the conversion plugin, which saves requests. Needs SVC_CONVERT_PLUGIN_ENDPOINT.',
    }),
    setting('SVC_CONVERT_PLUGIN_SECRET', SERVER, SIGNING_SECRET, {
      secret: true,
      description:
        'The shared secret signing requests to the conversion plugin. Needs SVC_CONVERT_PLUGIN_ENDPOINT.',
    }),
    setting('SVC_CONVERT_PLUGIN_SKIP_VERIFY', SERVER, boolean, {
      default: false,
      description: 'Skips TLS certificate verification towards the conversion plugin. Unsafe.',
    }),
    setting('SVC_VALIDATE_PLUGIN_ENDPOINT', SERVER, httpUrl('https://validate.example.com'), {
      description:
        'Address of a validation plugin, which can refuse pipeline files (custom linting) before a build starts.',
    }),
    setting('SVC_VALIDATE_PLUGIN_SECRET', SERVER, SIGNING_SECRET, {
      secret: true,
      description:
        'The shared secret signing requests to the validation plugin. Needs SVC_VALIDATE_PLUGIN_ENDPOINT.',
    }),
    setting('SVC_VALIDATE_PLUGIN_SKIP_VERIFY', SERVER, boolean, {
      default: false,
      description: 'Skips TLS certificate verification towards the validation plugin. Unsafe.',
    }),
    setting('SVC_TMPLJSON_ENABLED', SERVER, boolean, {
      default: false,
      description:
        'Converts pipeline files written in TMPLJSON (Jsonnet, `.jsonnet`) to YAML, and renders Jsonnet templates (`kind: template`, docs/pipelines.md). Enable it only where repositories are trusted.',
    }),
    setting('SVC_TMPLSCRIPT_ENABLED', SERVER, boolean, {
      default: false,
      description:
        'Runs pipeline files written in TMPLSCRIPT (Starlark, `.star`) to produce the pipeline configuration, and renders Starlark templates (`kind: template`, docs/pipelines.md).',
    }),
  ],
);

/** Global webhooks, the metrics endpoint and TLS. */
export const serverDelivery = group(
  'Server: webhooks, metrics, TLS',
  'Global system events sent to webhook receivers, access to the metrics endpoint, and how the server serves HTTPS.',
  [
    setting('SVC_WEBHOOK_ENDPOINT', SERVER, list(httpUrlEntry), {
      description:
        'Addresses that receive global system events (see "Webhook events" above), one signed request per address.',
    }),
    setting('SVC_WEBHOOK_EVENTS', SERVER, list(webhookEvent), {
      default: ['user', 'repo', 'build'],
      description:
        'The events that trigger webhooks. An entry is an event kind (user, repo, build: all its actions) or one <kind>:<action>; entries may be mixed. The default, every kind, selects every event.',
    }),
    setting('SVC_WEBHOOK_SECRET', SERVER, SIGNING_SECRET, {
      secret: true,
      description:
        'The shared secret signing webhook deliveries; receivers verify with the same value. Needs SVC_WEBHOOK_ENDPOINT.',
    }),
    setting('SVC_WEBHOOK_SKIP_VERIFY', SERVER, boolean, {
      default: false,
      description: 'Skips TLS certificate verification towards webhook receivers. Unsafe.',
    }),
    setting('SVC_METRICS_ANONYMOUS_ACCESS', SERVER, boolean, {
      default: false,
      description: 'Lets anyone read the METRICS (Prometheus) endpoint; otherwise it needs a token.',
    }),
    setting('SVC_TLS_AUTOCERT', SERVER, boolean, {
      default: false,
      description:
        "Serves HTTPS with a certificate for SVC_SERVER_HOST obtained from an ACME certificate authority (Let's Encrypt unless SVC_TLS_ACME_DIRECTORY says otherwise) with the HTTP-01 challenge. The server then also listens on port 80, where it answers the challenges and redirects every other request to HTTPS, and serves HTTPS on 443 unless SVC_SERVER_PORT is set. The account key and certificates are kept in `acme/` of the data folder (the folder of the embedded database file, else `./data`); a stored certificate is reused across restarts and renewed 30 days before it expires without a restart. Without a stored certificate the server waits for the first one at start, and exits naming the CA's reason if it cannot be had. Do not combine with SVC_TLS_CERT and SVC_TLS_KEY.",
    }),
    setting('SVC_TLS_ACME_DIRECTORY', SERVER, httpUrl('https://acme.example.com/directory'), {
      default: 'https://acme-v02.api.letsencrypt.org/directory',
      addition: true,
      description:
        "svc addition: the directory URL of the ACME certificate authority SVC_TLS_AUTOCERT orders from, e.g. Let's Encrypt's staging directory or a company CA (smallstep, pebble). Its TLS certificate must be trusted (NODE_EXTRA_CA_CERTS for a private CA).",
    }),
    setting('SVC_TLS_ACME_EMAIL', SERVER, text('an e-mail address'), {
      addition: true,
      description:
        'svc addition: the contact e-mail address of the ACME account of SVC_TLS_AUTOCERT, where the CA sends expiry and policy notices. None by default.',
    }),
    setting('SVC_TLS_CERT', SERVER, filePath, {
      description:
        'Certificate file for HTTPS: the server certificate, any intermediates and the authority certificate, concatenated, served as given. Needs SVC_TLS_KEY. Checked at start (readable, a certificate, matching the key, not expired: otherwise the server does not start, naming the file) and re-read within 2 s whenever the files change, so renewals need no restart; a renewal that does not load is logged and the previous certificate stays.',
    }),
    setting('SVC_TLS_KEY', SERVER, filePath, {
      description: 'Private key file of SVC_TLS_CERT. Needs SVC_TLS_CERT.',
    }),
  ],
);
