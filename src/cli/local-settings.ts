import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { DEFAULT_EMBEDDED_DATASOURCE } from '../config/datasource.js';

type Env = Record<string, string | undefined>;

/** The data folder of a local trial: the folder of the embedded database file. */
export function localDataDir(env: Env, cwd: string): string {
  const driver = env.SVC_DATABASE_DRIVER ?? 'embedded_sql';
  const datasource = driver === 'embedded_sql' ? env.SVC_DATABASE_DATASOURCE : undefined;
  return resolve(cwd, dirname(datasource || DEFAULT_EMBEDDED_DATASOURCE));
}

/**
 * `svc server --local` (what `npm start` runs): fills the required settings that are unset with
 * values for a trial on this machine — SVC_SERVER_HOST `localhost:<port>`, SVC_SERVER_PROTO `http`,
 * and an SVC_RPC_SECRET generated once and kept in `<data folder>/rpc-secret` (mode 0600), so that a
 * local runner can read it and restarts keep it. Settings that are set are never overridden.
 * Returns the new environment and the names of the settings it filled.
 */
export function withLocalSettings(env: Env, cwd: string): { env: Env; filled: string[] } {
  const result: Env = { ...env };
  const filled: string[] = [];
  const fill = (name: string, value: () => string): void => {
    if (result[name] !== undefined && result[name] !== '') return;
    result[name] = value();
    filled.push(name);
  };
  fill('SVC_SERVER_HOST', () => hostFor(portOf(env.SVC_SERVER_PORT)));
  fill('SVC_SERVER_PROTO', () => 'http');
  fill('SVC_RPC_SECRET', () => keptRpcSecret(localDataDir(env, cwd)));
  // A newcomer's first build needs a runner: the server runs one itself (when Docker answers).
  fill('SVC_RUNNER_LOCAL', () => 'true');
  // And repositories: without a git provider of theirs, svc hosts them itself (docs/local-git.md).
  if (!PROVIDER_SETTINGS.some((name) => (env[name] ?? '') !== '')) fill('SVC_SCML_ENABLED', () => 'true');
  return { env: result, filled };
}

/** A setting of each git provider but the built-in one that configures it (as gitProvider reads them). */
export const PROVIDER_SETTINGS = [
  'SVC_SCMA_CLIENT_ID',
  'SVC_SCMB_SERVER',
  'SVC_SCMC_CLIENT_ID',
  'SVC_SCMD_CLIENT_ID',
  'SVC_SCME_SERVER',
  'SVC_SCMF_SERVER',
] as const;

/** Port 0 (any free port) is only known after listening: the host then carries no port. */
function hostFor(port: string): string {
  return Number(port) === 0 ? 'localhost' : `localhost:${port}`;
}

function portOf(listen: string | undefined): string {
  const match = /(\d+)$/.exec(listen ?? '');
  return match?.[1] ?? '8080';
}

function keptRpcSecret(dataDir: string): string {
  const file = join(dataDir, 'rpc-secret');
  if (existsSync(file)) {
    const kept = readFileSync(file, 'utf8').trim();
    if (kept !== '') return kept;
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const secret = randomBytes(16).toString('hex');
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return secret;
}
