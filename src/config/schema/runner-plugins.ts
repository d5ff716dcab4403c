import { runners } from '../kinds.js';
import { stringMap } from '../values/collections.js';
import { httpUrl } from '../values/network.js';
import { filePath } from '../values/path.js';
import { boolean, text } from '../values/scalars.js';
import { group, setting } from './define.js';

const TOKEN = text('the token the plugin expects');

/** Global environment and secrets, and the plugins runners call. */
export const runnerPlugins = group(
  'Runners: environment, secrets, plugins',
  'Variables and secrets every pipeline gets, and the plugins runners ask for environment variables, registry credentials and secrets.',
  [
    setting('SVC_RUNNER_ENVIRON', runners('C', 'J', 'V', 'K', 'R'), stringMap(), {
      description: 'Environment variables given to every step, as NAME:value pairs.',
    }),
    setting('SVC_RUNNER_ENV_FILE', runners('C', 'J', 'V', 'K'), filePath, {
      description:
        'A file of environment variables (NAME=value lines) given to every step. In a container, mount the file and give the path inside.',
    }),
    setting('SVC_RUNNER_SECRETS', runners('C'), stringMap(), {
      secret: true,
      description:
        'Named secrets every pipeline may use, as name:value pairs. `svc config print` shows the names only.',
    }),
    setting('SVC_ENV_PLUGIN_ENDPOINT', runners('C', 'J', 'V', 'R'), httpUrl('https://environ.example.com'), {
      description:
        'Address of an environment plugin, which supplies extra environment variables for each build.',
    }),
    setting('SVC_ENV_PLUGIN_SKIP_VERIFY', runners('C', 'J', 'V', 'R'), boolean, {
      description: 'Skips TLS certificate verification towards the environment plugin. Unsafe.',
    }),
    setting('SVC_ENV_PLUGIN_TOKEN', runners('C', 'J', 'V', 'R'), TOKEN, {
      secret: true,
      description: 'Token authenticating requests to the environment plugin. Needs SVC_ENV_PLUGIN_ENDPOINT.',
    }),
    setting(
      'SVC_REGISTRY_PLUGIN_ENDPOINT',
      runners('C', 'J', 'V', 'K'),
      httpUrl('https://registry.example.com'),
      {
        description: 'Address of a registry plugin, which supplies credentials for pulling images.',
      },
    ),
    setting('SVC_REGISTRY_PLUGIN_SKIP_VERIFY', runners('C', 'J', 'V', 'K'), boolean, {
      description: 'Skips TLS certificate verification towards the registry plugin. Unsafe.',
    }),
    setting('SVC_REGISTRY_PLUGIN_TOKEN', runners('C', 'J', 'V', 'K'), TOKEN, {
      secret: true,
      description:
        'Token authenticating requests to the registry plugin. Needs SVC_REGISTRY_PLUGIN_ENDPOINT.',
    }),
    setting(
      'SVC_SECRET_PLUGIN_ENDPOINT',
      runners('C', 'J', 'V', 'K', 'R'),
      httpUrl('https://secrets.example.com'),
      {
        description: 'Address of a secret plugin, which supplies secrets from an external store.',
      },
    ),
    setting('SVC_SECRET_PLUGIN_SKIP_VERIFY', runners('C', 'J', 'V', 'K', 'R'), boolean, {
      description: 'Skips TLS certificate verification towards the secret plugin. Unsafe.',
    }),
    setting('SVC_SECRET_PLUGIN_TOKEN', runners('C', 'J', 'V', 'K', 'R'), TOKEN, {
      secret: true,
      description: 'Token authenticating requests to the secret plugin. Needs SVC_SECRET_PLUGIN_ENDPOINT.',
    }),
    setting('SVC_CONTAINER_CONFIG', runners('C', 'K'), filePath, {
      description:
        'A CONTAINER (Docker) config.json whose registry credentials are used to pull images. In a container, mount the file and give the path inside.',
    }),
  ],
);
