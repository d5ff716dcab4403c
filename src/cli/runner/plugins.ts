import type { DockerRunnerSettings } from '../../config/index.js';
import type { EnvironPlugin, RegistryPlugin, SecretPlugin } from '../../core/plugins.js';

type PluginKeys = 'SVC_SECRET_PLUGIN_ENDPOINT' | 'SVC_SECRET_PLUGIN_TOKEN' | 'SVC_SECRET_PLUGIN_SKIP_VERIFY';
type EnvironKeys = 'SVC_ENV_PLUGIN_ENDPOINT' | 'SVC_ENV_PLUGIN_TOKEN' | 'SVC_ENV_PLUGIN_SKIP_VERIFY';
type RegistryKeys =
  'SVC_REGISTRY_PLUGIN_ENDPOINT' | 'SVC_REGISTRY_PLUGIN_TOKEN' | 'SVC_REGISTRY_PLUGIN_SKIP_VERIFY';

/**
 * The plugin settings of a runner kind: the registry plugin's only where the kind has images, the
 * environment plugin's where the spec gives it (not K).
 */
export type PluginSettings = Pick<DockerRunnerSettings, PluginKeys> &
  Partial<Pick<DockerRunnerSettings, RegistryKeys | EnvironKeys>>;

/**
 * The secret, registry and environment plugins (SVC_{SECRET,REGISTRY,ENV}_PLUGIN_*) that are set; each
 * token signs its requests as Drone's runners sign them. Loaded only when set: their HTTP client
 * would cost every runner start-up time and memory.
 */
export async function runnerPlugins(settings: PluginSettings): Promise<{
  secretPlugin?: SecretPlugin;
  registryPlugin?: RegistryPlugin;
  environPlugin?: EnvironPlugin;
}> {
  const secret = settings.SVC_SECRET_PLUGIN_ENDPOINT;
  const registry = settings.SVC_REGISTRY_PLUGIN_ENDPOINT;
  const environ = settings.SVC_ENV_PLUGIN_ENDPOINT;
  if (secret == null && registry == null && environ == null) return {};
  const [{ PluginClient }, { RemoteSecretPlugin }, { RemoteRegistryPlugin }, { RemoteEnvironPlugin }] =
    await Promise.all([
      import('../../plugins/plugin-client.js'),
      import('../../plugins/secret-plugin.js'),
      import('../../plugins/registry-plugin.js'),
      import('../../plugins/environ-plugin.js'),
    ]);
  return {
    ...(environ == null
      ? {}
      : {
          environPlugin: new RemoteEnvironPlugin(
            new PluginClient('environment', {
              endpoint: environ,
              secret: settings.SVC_ENV_PLUGIN_TOKEN ?? undefined,
              skipVerify: settings.SVC_ENV_PLUGIN_SKIP_VERIFY === true,
            }),
          ),
        }),
    ...(secret == null
      ? {}
      : {
          secretPlugin: new RemoteSecretPlugin(
            new PluginClient('secret', {
              endpoint: secret,
              secret: settings.SVC_SECRET_PLUGIN_TOKEN ?? undefined,
              skipVerify: settings.SVC_SECRET_PLUGIN_SKIP_VERIFY === true,
            }),
          ),
        }),
    ...(registry == null
      ? {}
      : {
          registryPlugin: new RemoteRegistryPlugin(
            new PluginClient('registry', {
              endpoint: registry,
              secret: settings.SVC_REGISTRY_PLUGIN_TOKEN ?? undefined,
              skipVerify: settings.SVC_REGISTRY_PLUGIN_SKIP_VERIFY === true,
            }),
          ),
        }),
  };
}
