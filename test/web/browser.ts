/* Test support: a real Chromium (Debian's) driven by playwright-core, for the web UI's tests. */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  chromium,
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  type Page,
} from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** Whether the browser suite can run here; under CI a missing browser fails instead (ENVIRONMENT.md). */
export function browserSkip(): boolean {
  if (existsSync(CHROMIUM)) return false;
  if (process.env.CI === 'true') throw new Error(`${CHROMIUM} is missing: .ci/services.sh installs it`);
  console.warn(`skipping the browser tests: ${CHROMIUM} is missing (apt-get install chromium)`);
  return true;
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
}

/**
 * A browser context logged in to the svc at `url` with a session's cookie header (the test client's
 * `BrowserSession.cookie`), made with `options` (viewport, theme).
 */
export async function signedInContext(
  browser: Browser,
  cookie: string,
  url: string,
  options: BrowserContextOptions = {},
): Promise<BrowserContext> {
  const context = await browser.newContext(options);
  await context.addCookies(
    cookie.split('; ').map((pair) => {
      const [name = '', ...value] = pair.split('=');
      return { name, value: value.join('='), url };
    }),
  );
  return context;
}

/**
 * What went wrong in `page` as it is used: console errors, uncaught exceptions and answers of 400
 * or more. A test that expects none asserts the returned list stays empty.
 */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
  });
  return problems;
}

/** Where the browser tests write the screenshots docs/ui.md shows. */
export const SHOTS = fileURLToPath(new URL('../../docs/ui/', import.meta.url));
