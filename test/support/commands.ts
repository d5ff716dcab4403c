/*
 * Tests that run a command of a Debian package (docker-compose, systemd-analyze). Outside CI a missing
 * command skips its suite and says so; with CI=true it fails, because .ci/services.sh installs it.
 */
import { spawnSync } from 'node:child_process';
import { inCi } from './services.js';

/** Whether `command` is on PATH; in CI a missing one throws at collection time. */
export function requiredCommand(command: string, debianPackage: string): { skip: boolean } {
  if (spawnSync('sh', ['-c', `command -v ${command}`]).status === 0) return { skip: false };
  const message = `${command} is missing (Debian package ${debianPackage}; .ci/services.sh installs it)`;
  if (inCi) throw new Error(`required in CI: ${message}`);
  console.warn(`skipping its tests: ${message}`);
  return { skip: true };
}
