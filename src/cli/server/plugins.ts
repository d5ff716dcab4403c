import type { Logger } from 'pino';
import type { ServerSettings } from '../../config/index.js';
import type { GaugeRegistry } from '../../core/gauges.js';
import type { Store } from '../../core/store.js';
import { RemoteConvertPlugin, RemoteValidatePlugin } from '../../plugins/config-plugins.js';
import { PluginClient } from '../../plugins/plugin-client.js';
import { WebhookSender } from '../../plugins/webhook-sender.js';
import { WebhookEvents } from '../../server/events/webhook-events.js';

/** The conversion and validation plugins (SVC_CONVERT_PLUGIN_*, SVC_VALIDATE_PLUGIN_*) that are set. */
export function pipelinePlugins(settings: ServerSettings): {
  convert?: RemoteConvertPlugin;
  validate?: RemoteValidatePlugin;
} {
  const convert = settings.SVC_CONVERT_PLUGIN_ENDPOINT;
  const validate = settings.SVC_VALIDATE_PLUGIN_ENDPOINT;
  return {
    ...(convert == null
      ? {}
      : {
          convert: new RemoteConvertPlugin(
            new PluginClient('conversion', {
              endpoint: convert,
              secret: settings.SVC_CONVERT_PLUGIN_SECRET ?? undefined,
              skipVerify: settings.SVC_CONVERT_PLUGIN_SKIP_VERIFY,
            }),
            settings.SVC_CONVERT_PLUGIN_EXTENSION ?? undefined,
          ),
        }),
    ...(validate == null
      ? {}
      : {
          validate: new RemoteValidatePlugin(
            new PluginClient('validation', {
              endpoint: validate,
              secret: settings.SVC_VALIDATE_PLUGIN_SECRET ?? undefined,
              skipVerify: settings.SVC_VALIDATE_PLUGIN_SKIP_VERIFY,
            }),
          ),
        }),
  };
}

/** Global webhooks (SVC_WEBHOOK_*), when endpoints are set. */
export function webhookEvents(
  settings: ServerSettings,
  store: Store,
  system: { proto: string; host: string; version: string },
  logger: Logger,
  gauges: GaugeRegistry,
): WebhookEvents | undefined {
  const endpoints = settings.SVC_WEBHOOK_ENDPOINT ?? [];
  if (endpoints.length === 0) return undefined;
  if (settings.SVC_WEBHOOK_SECRET == null) {
    logger.warn(
      'SVC_WEBHOOK_ENDPOINT is set without SVC_WEBHOOK_SECRET: webhook deliveries go unsigned, and receivers cannot tell them from forgeries',
    );
  }
  const sender = new WebhookSender({
    endpoints,
    secret: settings.SVC_WEBHOOK_SECRET ?? undefined,
    skipVerify: settings.SVC_WEBHOOK_SKIP_VERIFY,
    logger,
  });
  gauges.add('webhook_deliveries', sender);
  return new WebhookEvents({
    sink: sender,
    selected: settings.SVC_WEBHOOK_EVENTS,
    system,
    users: store.users,
  });
}
