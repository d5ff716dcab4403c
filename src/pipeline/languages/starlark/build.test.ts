import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const STARLARK_SOURCE = '/usr/share/gocode/src/go.starlark.net/starlark';

async function goInstalled(): Promise<boolean> {
  return promisify(execFile)('go', ['version']).then(
    () => true,
    () => false,
  );
}

/** Why the check cannot run here, or undefined when it can. CI must always run it. */
const missing = !(await goInstalled())
  ? 'go is not installed (apt-get install golang-go)'
  : !existsSync(STARLARK_SOURCE)
    ? 'go.starlark.net is not installed (apt-get install golang-starlark-dev)'
    : undefined;
const skipReason = process.env.CI === 'true' ? undefined : missing;

describe('vendor/starlark', () => {
  it.skipIf(skipReason !== undefined)(
    `is what scripts/build-starlark.sh builds from the Go sources${skipReason ? ` (skipped: ${skipReason})` : ''}`,
    async () => {
      const { stdout } = await promisify(execFile)('bash', ['scripts/build-starlark.sh', '--check'], {
        cwd: ROOT,
      });
      expect(stdout).toMatch(/vendor\/starlark matches/);
    },
    180_000,
  );
});
