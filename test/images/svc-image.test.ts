/**
 * Issue 32: the svc/svc image as an operator runs it. Built by scripts/images.sh from this tree (a
 * no-op when it is up to date), it stays within 200 MB, holds every path images/svc/app-files.txt
 * lists, and a container of it — not the source tree — serves the web UI: Chromium logs in through
 * the GitHub double and makes an API token on the account page, which then works against the API.
 */
import { execFileSync } from 'node:child_process';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerForTests } from '../../src/engines/docker/testing.case.js';
import { startGitHubDouble, type GitHubDouble } from '../doubles/github/index.js';
import { freePort, serverEnv, waitFor } from '../e2e/system.js';
import { ensureSvcImage } from '../support/images.js';
import { browserSkip, launchBrowser } from '../web/browser.js';
import { definitionLines } from './image-definition.js';

const docker = await dockerForTests([]);
const skip = docker.skip || browserSkip();
const IMAGE = 'svc/svc:latest';
const LABEL = `io.svc.test=svc-image-${process.pid}`;
/** The ceiling for the image, in bytes (as `docker image inspect` counts them). */
const MAX_BYTES = 200_000_000;

const run = (...args: string[]): string =>
  execFileSync('docker', args, { encoding: 'utf8', env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });

describe.skipIf(skip)('svc/svc: the image, and a container of it serving the UI', () => {
  let github: GitHubDouble;
  let browser: Browser | undefined;
  let container = '';
  let port = 0;
  const url = (path = '') => `http://127.0.0.1:${port}${path}`;

  beforeAll(async () => {
    ensureSvcImage();
    github = await startGitHubDouble({ enterprise: true });
    github.addUser({ login: 'octocat', email: 'octocat@example.com' });
    github.addRepo({ owner: 'octocat', name: 'app', admins: ['octocat'] });
    port = await freePort();
    const env = {
      ...serverEnv(port, '/var/lib/svc', github),
      SVC_DATABASE_DATASOURCE: '/var/lib/svc/svc.sqlite',
      SVC_USER_CREATE: 'username:octocat,admin:true',
    };
    // The host's network: the server reaches the GitHub double on this machine's loopback, and
    // the browser reaches the server there, as with a process.
    container = run(
      'run',
      '-d',
      '--network',
      'host',
      '--label',
      LABEL,
      ...Object.entries(env).flatMap(([name, value]) => ['-e', `${name}=${value}`]),
      IMAGE,
    ).trim();
    await waitFor(
      'the container’s server to answer /healthz',
      async () => {
        const answer = await fetch(url('/healthz')).catch(() => undefined);
        return answer?.status === 200 ? true : undefined;
      },
      60_000,
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\ncontainer log:\n${run('logs', container)}`, { cause: error });
    });
    browser = await launchBrowser();
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    if (container !== '') run('rm', '-f', container);
    await github?.close();
  });

  it('stays within 200 MB and runs svc as user svc in /var/lib/svc', () => {
    const [size, user, workdir, entrypoint] = run(
      'image',
      'inspect',
      '-f',
      '{{.Size}} {{.Config.User}} {{.Config.WorkingDir}} {{json .Config.Entrypoint}}',
      IMAGE,
    )
      .trim()
      .split(' ');
    expect(Number(size)).toBeLessThanOrEqual(MAX_BYTES);
    expect([user, workdir, entrypoint]).toEqual(['10001:10001', '/var/lib/svc', '["svc"]']);
  });

  it('holds every path of images/svc/app-files.txt under /opt/svc, and Node', () => {
    const listed = run('run', '--rm', '--entrypoint', 'sh', IMAGE, '-c', 'cd /opt/svc && find . -maxdepth 5');
    const paths = new Set(listed.split('\n').map((line) => line.replace(/^\.\//, '')));
    for (const path of definitionLines('images/svc/app-files.txt')) expect(paths, path).toContain(path);
    expect(run('run', '--rm', '--entrypoint', 'node', IMAGE, '--version').trim()).toMatch(/^v24\./);
  });

  it('serves the UI: a login through the provider reaches the account page, whose new token works', async () => {
    if (browser === undefined) throw new Error('no browser');
    const page = await (await browser.newContext()).newPage();
    await page.goto(url('/'));
    await page.getByRole('link', { name: 'Log in' }).click();
    await page.waitForURL(url('/'));
    await page.getByRole('heading', { name: 'Repositories' }).waitFor();
    await page.goto(url('/account'));
    await page.getByRole('heading', { name: 'API token' }).waitFor();
    await page.getByRole('button', { name: 'New token' }).click();
    const token = (await page.locator('code.token').textContent()) ?? '';
    expect(token).not.toBe('');
    const answer = await fetch(url('/api/user'), { headers: { authorization: `Bearer ${token}` } });
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { login: string }).login).toBe('octocat');
  });
});
