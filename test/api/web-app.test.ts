import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWebApp } from '../../src/server/web/index.js';
import { call, loginAs } from './client.js';
import { startHarness, type Harness } from './harness.js';

/** A built UI as `npm run build` leaves it: a page, one hashed script with its compressed copies. */
function fakeBuild(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-web-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(
    join(dir, 'index.html'),
    '<!doctype html><title>svc</title><script type="module" src="/assets/app-abc123.js"></script>',
  );
  const script = Buffer.from('console.log("svc web");\n'.repeat(50));
  writeFileSync(join(dir, 'assets', 'app-abc123.js'), script);
  writeFileSync(join(dir, 'assets', 'app-abc123.js.gz'), gzipSync(script));
  writeFileSync(join(dir, 'assets', 'app-abc123.js.br'), brotliCompressSync(script));
  return dir;
}

describe('the web UI’s page and assets', () => {
  let h: Harness;

  beforeAll(async () => {
    const web = loadWebApp(fakeBuild());
    if (web === undefined) throw new Error('the fake build did not load');
    h = await startHarness({ web });
    h.github.addUser({ login: 'octocat' });
  });
  afterAll(() => h.close());

  it('serves hashed assets for a year, precompressed as the browser accepts', async () => {
    const gz = await fetch(`${h.url}/assets/app-abc123.js`, { headers: { 'accept-encoding': 'gzip' } });
    expect(gz.status).toBe(200);
    expect(gz.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(gz.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    // fetch decodes what it announced: the body came compressed and decoded to the script.
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(await gz.text()).toContain('svc web');
    const br = await fetch(`${h.url}/assets/app-abc123.js`, { headers: { 'accept-encoding': 'gzip, br' } });
    expect(br.headers.get('content-encoding')).toBe('br');
    expect((await fetch(`${h.url}/assets/nope.js`)).status).toBe(404);
  });

  it('answers every bookmarkable path with the page, under a strict Content-Security-Policy', async () => {
    for (const path of [
      '/octocat/app',
      '/octocat/app/12',
      '/octocat/app/12/1/2',
      '/octocat/app/settings',
      '/octocat/app/tests',
      '/octocat/app/tests/7',
      '/octocat/app/insights',
      '/orgs/octocat/insights',
      '/orgs/octocat/insights?days=7',
      '/account',
      '/admin/users',
    ]) {
      const page = await fetch(`${h.url}${path}`);
      expect(page.status, path).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(page.headers.get('cache-control')).toBe('no-cache');
      expect(await page.text()).toContain('/assets/app-abc123.js');
    }
    // The server's own paths stay its own: an unknown API route is the API's 404, not the page.
    const api = await call(h, '/api/no-such-thing');
    expect(api.status).toBe(404);
    expect(api.headers.get('content-type')).toContain('application/json');
    // `orgs` is no owner: only an organisation's insights are a page under it.
    for (const path of ['/orgs/octocat', '/orgs/octocat/settings', '/orgs/octocat/12']) {
      expect((await fetch(`${h.url}${path}`)).status, path).toBe(404);
    }
  });

  it('shows the start page to visitors and the UI to a logged-in browser at /', async () => {
    const visitor = await fetch(`${h.url}/`);
    expect(await visitor.text()).toContain('Log in');
    const session = await loginAs(h, 'octocat');
    const user = await fetch(`${h.url}/`, { headers: { cookie: session.cookie } });
    expect(user.headers.get('content-security-policy')).not.toBeNull();
    expect(await user.text()).toContain('/assets/app-abc123.js');
  });
});
