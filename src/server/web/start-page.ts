import type { FastifyInstance } from 'fastify';
import type { Authenticator, Principal } from '../auth/authenticator.js';
import { escapeHtml, HTML, htmlPage } from './html.js';
import { sendWebPage } from './spa.js';
import type { WebApp } from './web-app.js';
import { callbackUrl, configuredProvider, PROVIDERS, type LoginSettings } from './login-help.js';

/** What the start page shows: the version, how login works, and who is logged in. */
export interface StartPageDeps {
  readonly version: string;
  readonly settings: LoginSettings;
  readonly auth: Pick<Authenticator, 'identify'>;
  /** The built web UI: what a logged-in browser gets at `/`; undefined when it was not built. */
  readonly web?: WebApp | undefined;
}

/**
 * GET /: a small page saying what this server is, whether login works and, when it does not, which
 * settings enable it; for a logged-in user, their login and the way into the API.
 */
export function startPageRoute(app: FastifyInstance, deps: StartPageDeps): void {
  app.get('/', async (request, reply) => {
    // A stale cookie or a bad token must not break the start page: it then shows as logged out.
    const principal = await deps.auth.identify(request).catch(() => undefined);
    // A logged-in browser gets the web UI; everyone else this page, which says how to log in.
    if (principal?.via === 'session' && deps.web !== undefined) return sendWebPage(reply, deps.web);
    const body = [
      `<h1>svc ${escapeHtml(deps.version)}</h1>`,
      '<p class="note">A continuous-integration server for <code>.drone.yml</code> pipelines.</p>',
      principal === undefined ? loginSection(deps.settings) : userSection(principal),
    ].join('\n');
    // The page may show the user's API token: never keep it in a cache.
    return reply
      .type(HTML)
      .header('cache-control', 'no-store')
      .send(htmlPage(`svc ${deps.version}`, body));
  });
}

/**
 * The logged-in user's own page: who they are and their API token, as Drone's account page shows it
 * (there is no other way to reach the token from a browser without a UI: POST /api/user/token needs
 * a CSRF header). Shown only over the user's own session, never for bearer-token requests.
 */
function userSection(principal: Principal): string {
  const token =
    principal.via === 'session'
      ? `<p>Your API token (send it as <code>Authorization: Bearer &lt;token&gt;</code>): <code>${escapeHtml(principal.user.token)}</code></p>`
      : '';
  return [
    `<p>Logged in as <strong>${escapeHtml(principal.user.login)}</strong>.</p>`,
    token,
    '<p>API: <a href="/api/user">/api/user</a> (your account), <a href="/api/user/repos">/api/user/repos</a> (your repositories).</p>',
    '<p><a href="/logout">Log out</a></p>',
  ].join('\n');
}

function loginSection(settings: LoginSettings): string {
  const configured = configuredProvider(settings);
  if (configured !== undefined) {
    return `<p>Login: configured, through ${escapeHtml(configured.provider.title)}. <a href="/login">Log in</a></p>`;
  }
  const items = PROVIDERS.map(
    (provider) => `<li>${escapeHtml(provider.title)}: ${escapeHtml(provider.enable)}</li>`,
  ).join('\n');
  return [
    '<p>Login: <strong>not configured</strong>. No git provider is set, so nobody can log in; API tokens of',
    'accounts made with <code>SVC_USER_CREATE</code> still work. To enable login, set the settings of one provider:</p>',
    `<ul>\n${items}\n</ul>`,
    `<p>The OAuth application's callback URL is <code>${escapeHtml(callbackUrl(settings))}</code>.`,
    'Every setting is described in <a href="/docs/settings.md">docs/settings.md</a>.</p>',
  ].join('\n');
}
