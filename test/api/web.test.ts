import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginHelp, type LoginSettings } from '../../src/server/web/index.js';
import { call, loginAs, tokenOf } from './client.js';
import { startHarness, type Harness } from './harness.js';

const NO_PROVIDER: LoginSettings = {
  SVC_SERVER_PROTO: 'https',
  SVC_SERVER_HOST: 'ci.example.com',
  SVC_SCMA_CLIENT_ID: null,
  SVC_SCMB_CLIENT_ID: null,
  SVC_SCMB_SERVER: null,
  SVC_SCMC_CLIENT_ID: null,
  SVC_SCMC_SERVER: 'https://github.com',
  SVC_SCMD_CLIENT_ID: null,
  SVC_SCMD_SERVER: 'https://gitlab.example.com',
  SVC_SCME_SERVER: null,
  SVC_SCMF_CONSUMER_KEY: null,
  SVC_SCMF_SERVER: null,
  SVC_SCML_ENABLED: false,
};

describe('loginHelp', () => {
  it('names the configured provider and the callback URL', () => {
    expect(loginHelp({ ...NO_PROVIDER, SVC_SCMC_CLIENT_ID: 'Iv1.abc' })).toBe(
      'login: through GitHub or GitHub Enterprise Server (SVC_SCMC_CLIENT_ID) at https://ci.example.com/login',
    );
    expect(loginHelp({ ...NO_PROVIDER, SVC_SCMB_SERVER: 'https://gitea.example.com' })).toContain(
      'Gitea or Forgejo (SVC_SCMB_SERVER)',
    );
  });

  it('lists the settings that enable login when no provider is configured', () => {
    const help = loginHelp(NO_PROVIDER);
    expect(help).toMatch(/^login is not configured: /);
    expect(help).toContain('SVC_SCMC_CLIENT_ID + SVC_SCMC_CLIENT_SECRET');
    expect(help).toContain('SVC_SCMD_CLIENT_ID + SVC_SCMD_CLIENT_SECRET');
    expect(help).toContain('SVC_SCME_SERVER');
    expect(help).toContain('https://ci.example.com/login');
    expect(help).toContain('docs/settings.md');
  });
});

describe('start page', () => {
  let withProvider: Harness;
  let without: Harness;
  beforeAll(async () => {
    [withProvider, without] = await Promise.all([startHarness(), startHarness({ noProvider: true })]);
    withProvider.github.addUser({ login: 'octocat' });
  });
  afterAll(async () => {
    await withProvider.close();
    await without.close();
  });

  it('shows the version and a login link when a provider is configured', async () => {
    const page = await call(withProvider, '/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.text).toContain('<h1>svc 0.0.0-test</h1>');
    expect(page.text).toContain('Login: configured, through GitHub or GitHub Enterprise Server.');
    expect(page.text).toContain('<a href="/login">Log in</a>');
    expect(page.text).not.toContain('not configured');
  });

  // The server's own pages are no less protected than the app's: no script, no framing, and the
  // inline style allowed by its hash only (a browser hashes exactly the element's text).
  it('sends its pages under the web UI’s Content-Security-Policy, allowing its one style by hash', async () => {
    for (const path of ['/', '/login?error=access_denied&state=forged']) {
      const page = await call(withProvider, path);
      const policy = page.headers.get('content-security-policy') ?? '';
      expect(policy, path).toContain("script-src 'self'");
      expect(policy, path).toContain("frame-ancestors 'none'");
      expect(page.headers.get('x-content-type-options'), path).toBe('nosniff');
      const style = /<style>([\s\S]*?)<\/style>/.exec(page.text)?.[1] ?? 'no style';
      const hash = createHash('sha256').update(style).digest('base64');
      expect(policy, path).toContain(`style-src 'self' 'sha256-${hash}'`);
      expect(policy, path).not.toContain('unsafe-inline');
    }
  });

  it('shows the logged-in user and the way into the API', async () => {
    const session = await loginAs(withProvider, 'octocat');
    const page = await call(withProvider, '/', { session });
    expect(page.text).toContain('Logged in as <strong>octocat</strong>.');
    expect(page.text).toContain('<a href="/api/user">/api/user</a>');
    expect(page.text).toContain(
      `<form method="post" action="/logout"><input type="hidden" name="csrf" value="${session.csrf}"><button type="submit">Log out</button></form>`,
    );
    // svc keeps only a hash of API tokens: the page says where a new one is made, never cached.
    expect(page.text).toContain('<code>POST /api/user/token?rotate=true</code>');
    expect(page.headers.get('cache-control')).toBe('no-store');
    const token = await tokenOf(withProvider, session);
    const viaToken = await call(withProvider, '/', { token });
    expect(viaToken.text).toContain('Logged in as <strong>octocat</strong>.');
    expect(viaToken.text).not.toContain(token);
    const stale = await call(withProvider, '/', { token: 'not-a-token' });
    expect(stale.status).toBe(200);
    expect(stale.text).toContain('Log in');
  });

  it('lists the settings that enable login, with a working link to docs/settings.md, without a provider', async () => {
    const page = await call(without, '/');
    expect(page.text).toContain('Login: <strong>not configured</strong>.');
    expect(page.text).toContain('SVC_SCMC_CLIENT_ID + SVC_SCMC_CLIENT_SECRET');
    expect(page.text).toContain(`<code>http://${without.host}/login</code>`);
    expect(page.text).toContain('<a href="/docs/settings.md">docs/settings.md</a>');
    // A walkthrough per provider, with this server's addresses filled in.
    expect(page.text).toContain('<h2>Connect your git provider</h2>');
    expect(page.text).toContain(
      `Application name: svc; Homepage URL: http://${without.host}; Authorization callback URL: http://${without.host}/login.`,
    );
    expect(page.text).toContain('Open https://github.com/settings/applications/new');
    expect(page.text).toContain(
      'SVC_SCMC_CLIENT_ID=&lt;the client ID&gt;\nSVC_SCMC_CLIENT_SECRET=&lt;the client secret&gt;</code>',
    );
    expect(page.text).toContain(
      `Redirect URI: http://${without.host}/login; Confidential: checked; Scopes: api.`,
    );
    expect(page.text).toContain('<summary>Bitbucket Server / Data Center</summary>');
    expect(page.text).toContain('SVC_SCME_SERVER=https://&lt;your Gogs&gt;');
    const doc = await call(without, '/docs/settings.md');
    expect(doc.status).toBe(200);
    expect(doc.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(doc.text).toContain('SVC_SCMC_CLIENT_ID');
    const login = await call(without, '/login');
    expect(login.status).toBe(503);
    expect(login.text).toContain('Login is not configured');
  });

  it.each(['caches.md', 'artifacts.md', 'test-reports.md'])(
    'serves docs/%s, which the pages’ empty states link to, as the installation has it',
    async (name) => {
      const file = new URL(`../../docs/${name}`, import.meta.url);
      const doc = await call(withProvider, `/docs/${name}`);
      if (existsSync(file)) {
        expect(doc.status).toBe(200);
        expect(doc.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
        expect(doc.text).toBe(readFileSync(file, 'utf8'));
      } else {
        expect(doc.json).toMatchObject({
          code: 'NOT_FOUND',
          message: `docs/${name} (not part of this installation) not found`,
        });
      }
    },
  );
});
