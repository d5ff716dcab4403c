import type { FastifyInstance } from 'fastify';
import { docRoutes } from './docs.js';
import { registerWebApp } from './spa.js';
import { startPageRoute, type StartPageDeps } from './start-page.js';

export { publicUrl, webhookUrl, type HookAddress, type ServerAddress } from './address.js';
export { configuredProvider, loginHelp, type LoginSettings } from './login-help.js';
export type { StartPageDeps } from './start-page.js';
export { loadWebApp, type WebApp } from './web-app.js';

/**
 * GET / (the start page, or the web UI for a logged-in browser), GET /docs/settings.md and
 * /docs/caches.md (the docs the pages link to), and the web UI's assets and pages when it was built.
 */
export function registerWebRoutes(app: FastifyInstance, deps: StartPageDeps): void {
  startPageRoute(app, deps);
  docRoutes(app);
  if (deps.web !== undefined) registerWebApp(app, deps.web);
}
