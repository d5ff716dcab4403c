import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { localDataDir, withLocalSettings } from './local-settings.js';

const tempDir = (): string => mkdtempSync(join(tmpdir(), 'svc-local-'));

describe('withLocalSettings', () => {
  it('fills the required settings and keeps the generated RPC secret in the data folder', () => {
    const cwd = tempDir();
    const first = withLocalSettings({}, cwd);
    expect(first.filled).toEqual([
      'SVC_SERVER_HOST',
      'SVC_SERVER_PROTO',
      'SVC_RPC_SECRET',
      'SVC_RUNNER_LOCAL',
      'SVC_SCML_ENABLED',
    ]);
    expect(first.env.SVC_RUNNER_LOCAL).toBe('true');
    // No git provider configured: svc hosts the repositories itself.
    expect(first.env.SVC_SCML_ENABLED).toBe('true');
    expect(first.env.SVC_SERVER_HOST).toBe('localhost:8080');
    expect(first.env.SVC_SERVER_PROTO).toBe('http');
    expect(first.env.SVC_RPC_SECRET).toMatch(/^[0-9a-f]{32}$/);
    const file = join(cwd, 'data', 'rpc-secret');
    expect(readFileSync(file, 'utf8').trim()).toBe(first.env.SVC_RPC_SECRET);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const second = withLocalSettings({}, cwd);
    expect(second.env.SVC_RPC_SECRET).toBe(first.env.SVC_RPC_SECRET);
  });

  it('never overrides a setting that is set', () => {
    const env = {
      SVC_SERVER_HOST: 'ci.example.com',
      SVC_SERVER_PROTO: 'https',
      SVC_RPC_SECRET: 'mine',
      SVC_RUNNER_LOCAL: 'false',
      SVC_SCML_ENABLED: 'false',
    };
    const result = withLocalSettings(env, tempDir());
    expect(result.filled).toEqual([]);
    expect(result.env).toEqual(env);
  });

  it('leaves the built-in git provider off when another provider is configured', () => {
    const result = withLocalSettings({ SVC_SCMC_CLIENT_ID: 'id', SVC_SCMC_CLIENT_SECRET: 's' }, tempDir());
    expect(result.filled).not.toContain('SVC_SCML_ENABLED');
    expect(result.env.SVC_SCML_ENABLED).toBeUndefined();
  });

  it('derives the host port from SVC_SERVER_PORT', () => {
    expect(withLocalSettings({ SVC_SERVER_PORT: ':9090' }, tempDir()).env.SVC_SERVER_HOST).toBe(
      'localhost:9090',
    );
  });

  it('keeps the secret next to a custom embedded database file', () => {
    const cwd = tempDir();
    expect(localDataDir({ SVC_DATABASE_DATASOURCE: 'var/db/ci.sqlite' }, cwd)).toBe(join(cwd, 'var', 'db'));
    expect(localDataDir({ SVC_DATABASE_DRIVER: 'sql_b', SVC_DATABASE_DATASOURCE: 'postgres://x' }, cwd)).toBe(
      join(cwd, 'data'),
    );
  });
});
