import type { FastifyInstance } from 'fastify';
import type { Authenticator, Principal } from '../auth/authenticator.js';
import { publicUrl } from './address.js';
import { escapeHtml, htmlPage, sendHtml } from './html.js';
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
    // The page is about who is logged in: never keep it in a cache.
    return sendHtml(reply.header('cache-control', 'no-store'), htmlPage(`svc ${deps.version}`, body));
  });
}

/**
 * The logged-in user's own page: who they are and how to reach the API. svc keeps only a hash of
 * API tokens, so the page cannot show one: it says where a new one is made (shown once).
 */
function userSection(principal: Principal): string {
  return [
    `<p>Logged in as <strong>${escapeHtml(principal.user.login)}</strong>.</p>`,
    '<p>API tokens are shown once, when made: <code>POST /api/user/token?rotate=true</code> (the web UI’s account page does it) makes a new one, which replaces the old one. Send it as <code>Authorization: Bearer &lt;token&gt;</code>.</p>',
    '<p>API: <a href="/api/user">/api/user</a> (your account), <a href="/api/user/repos">/api/user/repos</a> (your repositories).</p>',
    `<form method="post" action="/logout"><input type="hidden" name="csrf" value="${escapeHtml(principal.csrf ?? '')}"><button type="submit">Log out</button></form>`,
  ].join('\n');
}

function loginSection(settings: LoginSettings): string {
  if (settings.SVC_SCML_ENABLED === true)
    return '<p>Login: with the accounts of svc’s built-in git provider (docs/local-git.md). <a href="/login">Log in</a></p>';
  const configured = configuredProvider(settings);
  if (configured !== undefined) {
    return `<p>Login: configured, through ${escapeHtml(configured.provider.title)}. <a href="/login">Log in</a></p>`;
  }
  return connectGuide(settings);
}

/**
 * A newcomer's walkthrough when no provider is set: register svc at the provider (one folding
 * section per provider, the addresses filled in), give svc the settings, log in, push a pipeline.
 */
function connectGuide(settings: LoginSettings): string {
  const homepage = publicUrl(
    { proto: settings.SVC_SERVER_PROTO === 'https' ? 'https' : 'http', host: settings.SVC_SERVER_HOST },
    '',
  );
  const callback = callbackUrl(settings);
  const sections = PROVIDERS.map((provider, index) => {
    const server = provider.serverSetting === undefined ? null : (settings[provider.serverSetting] ?? null);
    const context = { homepage, callback, server: typeof server === 'string' ? server : null };
    const steps = provider.guide.register(context).map((step) => `<li>${escapeHtml(step)}</li>`);
    const lines = provider.guide.settings(context).join('\n');
    return [
      `<details${index === 0 ? ' open' : ''}><summary>${escapeHtml(provider.title)}</summary>`,
      `<ol>\n${steps.join('\n')}\n</ol>`,
      `<p>Then give svc these settings (${escapeHtml(provider.enable)}):</p>`,
      `<pre><code>${escapeHtml(lines)}</code></pre>`,
      '</details>',
    ].join('\n');
  });
  return [
    '<p>Login: <strong>not configured</strong>. No git provider is set, so nobody can log in; API tokens of',
    'accounts made with <code>SVC_USER_CREATE</code> still work.</p>',
    '<h2>Connect your git provider</h2>',
    '<ol class="steps">',
    `<li><strong>Register svc at your provider.</strong> svc's address is <code>${escapeHtml(homepage)}</code>; the`,
    `provider sends users back to the callback URL <code>${escapeHtml(callback)}</code> (both follow`,
    '<code>SVC_SERVER_PROTO</code> and <code>SVC_SERVER_HOST</code>: set them to the address browsers and the provider reach).',
    sections.join('\n'),
    '</li>',
    '<li><strong>Give svc the settings and start it again</strong>, e.g. <code>SVC_SCMC_CLIENT_ID=… SVC_SCMC_CLIENT_SECRET=… npm start</code>.',
    'Exactly one provider may be set. Every setting is described in <a href="/docs/settings.md">docs/settings.md</a>.</li>',
    '<li><strong>Log in</strong> on this page and <strong>enable a repository</strong>: svc adds a webhook to it, signed with a secret of its own.</li>',
    "<li><strong>Push a pipeline</strong>: a <code>.drone.yml</code> (or <code>.svc.yml</code>) at the repository's root, e.g.",
    `<pre><code>${escapeHtml(SAMPLE_PIPELINE)}</code></pre>`,
    'The build shows up on this page; a runner runs it (with <code>svc server --local</code>, <code>npm start</code>, a Docker runner runs inside the server when a Docker engine answers; elsewhere start <code>svc runner docker</code> with the same <code>SVC_RPC_SECRET</code>).</li>',
    '</ol>',
  ].join('\n');
}

const SAMPLE_PIPELINE = `kind: pipeline
type: docker
name: default
steps:
- name: test
  image: node:24
  commands:
  - npm ci
  - npm test`;
