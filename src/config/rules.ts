import type { SettingProblem } from '../core/errors.js';

/** What cross-setting rules see: only settings the kind accepts. */
export interface RuleView {
  /** True when the setting is accepted by the kind and given a non-empty value. */
  isSet(name: string): boolean;
  /** The parsed value: null when unset without default, undefined when not accepted or invalid. */
  value(name: string): unknown;
}

type Rule = (view: RuleView) => SettingProblem[];

/** `setting` is set but `needed` is not. */
function needs(setting: string, needed: string, why: string): Rule {
  return (view) =>
    view.isSet(setting) && !view.isSet(needed)
      ? [{ setting, message: `is set but ${needed} is not; ${why}` }]
      : [];
}

/** Each needs the other. */
function pair(a: string, b: string, why: string): Rule[] {
  return [needs(a, b, why), needs(b, a, why)];
}

const PLUGIN = 'a plugin secret or token is only used with the plugin it belongs to';
const OBJSTORE = 'the object store settings describe where SVC_OBJSTORE_BUCKET is';

/** The git providers and the settings that count as configuring each. */
const PROVIDERS: readonly (readonly [string, readonly string[]])[] = [
  ['SCMA (Bitbucket Cloud)', ['SVC_SCMA_CLIENT_ID']],
  ['SCMB (Gitea)', ['SVC_SCMB_CLIENT_ID', 'SVC_SCMB_SERVER']],
  ['SCMC (GitHub)', ['SVC_SCMC_CLIENT_ID']],
  ['SCMD (GitLab)', ['SVC_SCMD_CLIENT_ID']],
  ['SCME (Gogs)', ['SVC_SCME_SERVER']],
  ['SCMF (Bitbucket Server)', ['SVC_SCMF_CONSUMER_KEY', 'SVC_SCMF_SERVER']],
];

const oneProvider: Rule = (view) => {
  const configured = PROVIDERS.flatMap(([provider, settings]) => {
    const by = settings.find((name) => view.isSet(name));
    return by === undefined ? [] : [{ provider, by }];
  });
  const [first, ...others] = configured;
  if (first === undefined) return [];
  return others.map(({ provider, by }) => ({
    setting: by,
    message: `configures the git provider ${provider}, but ${first.by} already configures ${first.provider}; svc talks to one git provider, so configure only one`,
  }));
};

const autocertOrFiles: Rule = (view) =>
  view.value('SVC_TLS_AUTOCERT') === true && (view.isSet('SVC_TLS_CERT') || view.isSet('SVC_TLS_KEY'))
    ? [
        {
          setting: 'SVC_TLS_AUTOCERT',
          message:
            'is true while SVC_TLS_CERT/SVC_TLS_KEY are set; use either an automatic certificate or your own files, not both',
        },
      ]
    : [];

/** A Kubernetes request above its limit makes every pod invalid. */
function requestWithinLimit(request: string, limit: string): Rule {
  return (view) => {
    const asked = view.value(request);
    const cap = view.value(limit);
    return typeof asked === 'number' && typeof cap === 'number' && asked > cap
      ? [
          {
            setting: request,
            message: `is above ${limit}; Kubernetes refuses pods whose request exceeds their limit`,
          },
        ]
      : [];
  };
}

const RULES: readonly Rule[] = [
  ...pair('SVC_TLS_CERT', 'SVC_TLS_KEY', 'HTTPS needs both the certificate and its key'),
  autocertOrFiles,
  needs('SVC_CONVERT_PLUGIN_SECRET', 'SVC_CONVERT_PLUGIN_ENDPOINT', PLUGIN),
  needs(
    'SVC_CONVERT_PLUGIN_EXTENSION',
    'SVC_CONVERT_PLUGIN_ENDPOINT',
    'the extension selects files for that plugin',
  ),
  needs('SVC_VALIDATE_PLUGIN_SECRET', 'SVC_VALIDATE_PLUGIN_ENDPOINT', PLUGIN),
  needs('SVC_WEBHOOK_SECRET', 'SVC_WEBHOOK_ENDPOINT', 'the secret signs deliveries to those endpoints'),
  needs('SVC_ENV_PLUGIN_TOKEN', 'SVC_ENV_PLUGIN_ENDPOINT', PLUGIN),
  needs('SVC_REGISTRY_PLUGIN_TOKEN', 'SVC_REGISTRY_PLUGIN_ENDPOINT', PLUGIN),
  needs('SVC_SECRET_PLUGIN_TOKEN', 'SVC_SECRET_PLUGIN_ENDPOINT', PLUGIN),
  ...['SCMA', 'SCMB', 'SCMC', 'SCMD'].flatMap((scm) =>
    pair(
      `SVC_${scm}_CLIENT_ID`,
      `SVC_${scm}_CLIENT_SECRET`,
      'an OAuth application needs both its client id and secret',
    ),
  ),
  oneProvider,
  needs(
    'SVC_SCMF_CONSUMER_KEY',
    'SVC_SCMF_PRIVATE_KEY',
    'SCMF signs its OAuth requests with the private key',
  ),
  needs('SVC_SCMF_CONSUMER_KEY', 'SVC_SCMF_SERVER', 'SCMF has no public address to fall back on'),
  ...pair(
    'SVC_SCMB_SERVER',
    'SVC_SCMB_CLIENT_ID',
    'svc logs users in to a Gitea server through its OAuth2 application',
  ),
  ...pair('SVC_SERVER_PROXY_HOST', 'SVC_SERVER_PROXY_PROTO', 'webhook URLs through the proxy need both'),
  needs('SVC_OBJSTORE_ENDPOINT', 'SVC_OBJSTORE_BUCKET', OBJSTORE),
  needs('SVC_OBJSTORE_PREFIX', 'SVC_OBJSTORE_BUCKET', OBJSTORE),
  needs('SVC_OBJSTORE_PATH_STYLE', 'SVC_OBJSTORE_BUCKET', OBJSTORE),
  ...pair('SVC_SHELLSHARE_HOST', 'SVC_SHELLSHARE_PORT', 'a self-hosted shell-sharing server needs both'),
  needs(
    'SVC_SHELLSHARE_FINGERPRINT_RSA',
    'SVC_SHELLSHARE_HOST',
    'the fingerprint verifies a self-hosted server',
  ),
  needs(
    'SVC_SHELLSHARE_FINGERPRINT_ED25519',
    'SVC_SHELLSHARE_HOST',
    'the fingerprint verifies a self-hosted server',
  ),
  requestWithinLimit('SVC_RESOURCE_REQUEST_CPU', 'SVC_RESOURCE_LIMIT_CPU'),
  requestWithinLimit('SVC_RESOURCE_REQUEST_MEMORY', 'SVC_RESOURCE_LIMIT_MEMORY'),
];

/** The problems of settings that only make sense together. */
export function crossSettingProblems(view: RuleView): SettingProblem[] {
  return RULES.flatMap((rule) => rule(view));
}
