/* Test support: a real Chromium (Debian's) driven by playwright-core, for the web UI's tests. */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

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
