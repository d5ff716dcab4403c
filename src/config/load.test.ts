import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REQUIRED_ENV } from '../../test/fixtures/spec-settings.js';
import type { Datasource } from '../core/datasource.js';
import { InvalidSettingsError } from '../core/errors.js';
import { loadSettings } from './load.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-load-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function caught(run: () => unknown): InvalidSettingsError {
  try {
    run();
  } catch (error) {
    if (error instanceof InvalidSettingsError) return error;
    throw error;
  }
  throw new Error('expected InvalidSettingsError');
}

describe('loadSettings', () => {
  it('reports every problem at once, in schema order, each naming its setting', () => {
    const error = caught(() =>
      loadSettings(
        'server',
        {
          ...REQUIRED_ENV.server,
          SVC_CLEANUP_INTERVAL: 'soon',
          SVC_SCMB_SKIP_VERIFY: 'yes',
          SVC_SERVER_PORT: 'eighty',
        },
        { cwd: dir },
      ),
    );
    expect(error.problems.map((problem) => problem.setting)).toEqual([
      'SVC_SERVER_PORT',
      'SVC_SCMB_SKIP_VERIFY',
      'SVC_CLEANUP_INTERVAL',
    ]);
    expect(error.message).toContain(
      'SVC_CLEANUP_INTERVAL: "soon" is not a duration; expected a number and a unit such as 24h, 90m, 1h30m or 45s',
    );
  });

  it('reports every missing required setting of a kind', () => {
    expect(caught(() => loadSettings('server', {}, { cwd: dir })).problems.map((p) => p.setting)).toEqual([
      'SVC_SERVER_HOST',
      'SVC_SERVER_PROTO',
      'SVC_RPC_SECRET',
    ]);
    expect(caught(() => loadSettings('vm', {}, { cwd: dir })).problems.map((p) => p.setting)).toEqual([
      'SVC_RPC_HOST',
      'SVC_RPC_PROTO',
      'SVC_RPC_SECRET',
      'SVC_VMHOST_ENDPOINT',
      'SVC_VMHOST_TOKEN',
      'SVC_VM_IMAGE',
    ]);
  });

  it('mixes value problems, missing files and cross-setting problems in one report', () => {
    const error = caught(() =>
      loadSettings(
        'server',
        {
          SVC_SERVER_PROTO: 'https',
          SVC_RPC_SECRET: 's',
          SVC_TLS_CERT: 'missing.pem',
          SVC_WEBHOOK_SECRET: 'w',
        },
        { cwd: dir },
      ),
    );
    expect(error.problems.map((problem) => problem.setting)).toEqual([
      'SVC_SERVER_HOST',
      'SVC_TLS_CERT',
      'SVC_TLS_CERT',
      'SVC_WEBHOOK_SECRET',
    ]);
    expect(error.problems[1]?.message).toContain(join(dir, 'missing.pem'));
  });

  it('reads only SVC_* variables and treats empty ones as unset', () => {
    const { settings } = loadSettings(
      'server',
      { ...REQUIRED_ENV.server, SERVER_HOST: 'ignored', SVC_COOKIE_TIMEOUT: '', SVC_SCMA_DEBUG: undefined },
      { cwd: dir },
    );
    expect(settings.SVC_SERVER_HOST).toBe('ci.example.com');
    expect(settings.SVC_COOKIE_TIMEOUT).toBe(72 * 3_600_000);
    expect(settings.SVC_SCMA_DEBUG).toBeNull();
  });

  it('returns typed values', () => {
    writeFileSync(join(dir, 'rules.yml'), 'prod: [acme/*]\n');
    const server = loadSettings(
      'server',
      {
        ...REQUIRED_ENV.server,
        SVC_DATABASE_DRIVER: 'sql_a',
        SVC_DATABASE_DATASOURCE: 'ci:pw@tcp(db:3306)/ci',
      },
      { cwd: dir },
    ).settings;
    const interval: number = server.SVC_CLEANUP_INTERVAL;
    const datasource: Datasource = server.SVC_DATABASE_DATASOURCE;
    expect(interval).toBe(86_400_000);
    expect(datasource).toEqual({
      driver: 'sql_a',
      user: 'ci',
      password: 'pw',
      host: 'db',
      port: 3306,
      database: 'ci',
      params: {},
    });
    expect(server.SVC_SCMC_SCOPE).toEqual(['repo', 'repo:status', 'user:email', 'read:org']);
    const kubernetes = loadSettings(
      'kubernetes',
      { ...REQUIRED_ENV.kubernetes, SVC_NAMESPACE_RULES_FILE: 'rules.yml', SVC_RESOURCE_LIMIT_MEMORY: '1Gi' },
      { cwd: dir },
    ).settings;
    expect(kubernetes.SVC_NAMESPACE_RULES_FILE).toEqual({
      path: join(dir, 'rules.yml'),
      rules: { prod: ['acme/*'] },
    });
    expect(kubernetes.SVC_RESOURCE_LIMIT_MEMORY).toBe(2 ** 30);
    expect(kubernetes.SVC_RUNNER_CAPACITY).toBeNull();
    expect(loadSettings('docker', REQUIRED_ENV.docker, { cwd: dir }).settings.SVC_RUNNER_CAPACITY).toBe(2);
  });

  it('defaults the datasource to the embedded file and requires it for network databases', () => {
    expect(
      loadSettings('server', REQUIRED_ENV.server, { cwd: dir }).settings.SVC_DATABASE_DATASOURCE,
    ).toEqual({
      driver: 'embedded_sql',
      path: 'data/svc.sqlite',
    });
    const error = caught(() =>
      loadSettings('server', { ...REQUIRED_ENV.server, SVC_DATABASE_DRIVER: 'sql_a' }, { cwd: dir }),
    );
    expect(error.problems).toEqual([
      {
        setting: 'SVC_DATABASE_DATASOURCE',
        message:
          'is required when SVC_DATABASE_DRIVER is sql_a; expected the form <user>:<password>@tcp(<host>:<port>)/<database>?parseTime=true',
      },
    ]);
  });

  it('reports a bad driver once, without a second problem about the datasource', () => {
    const error = caught(() =>
      loadSettings(
        'server',
        { ...REQUIRED_ENV.server, SVC_DATABASE_DRIVER: 'mysql', SVC_DATABASE_DATASOURCE: 'x' },
        { cwd: dir },
      ),
    );
    expect(error.problems).toEqual([
      {
        setting: 'SVC_DATABASE_DRIVER',
        message:
          '"mysql" is not a database driver; expected embedded_sql (a SQLite file), sql_a (MySQL or MariaDB) or sql_b (PostgreSQL)',
      },
    ]);
  });

  it('does not check settings the kind does not accept', () => {
    expect(() =>
      loadSettings('kubernetes', { ...REQUIRED_ENV.kubernetes, SVC_CPU_SHARES: 'lots' }, { cwd: dir }),
    ).not.toThrow();
  });
});
