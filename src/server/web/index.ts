import type { FastifyInstance } from 'fastify';
import { settingsDocRoute } from './settings-doc.js';
import { startPageRoute, type StartPageDeps } from './start-page.js';

export { publicUrl, webhookUrl, type HookAddress, type ServerAddress } from './address.js';
export { configuredProvider, loginHelp, type LoginSettings } from './login-help.js';
export type { StartPageDeps } from './start-page.js';

/** GET / (the start page) and GET /docs/settings.md (the settings reference it links to). */
export function registerWebRoutes(app: FastifyInstance, deps: StartPageDeps): void {
  startPageRoute(app, deps);
  settingsDocRoute(app);
}
