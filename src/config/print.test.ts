import { describe, expect, it } from 'vitest';
import { REQUIRED_ENV } from '../../test/fixtures/spec-settings.js';
import { SETTINGS_KINDS } from './kinds.js';
import { loadSettings } from './load.js';
import { printableSettings } from './print.js';
import { settingsFor } from './schema/index.js';

const TOKEN = '0123456789abcdef0123456789abcdef';

describe('printableSettings', () => {
  it.each(SETTINGS_KINDS)('%s: every accepted setting, in schema order', (kind) => {
    const { settings } = loadSettings(kind, REQUIRED_ENV[kind], { cwd: '/' });
    const printed = printableSettings(kind, settings);
    expect(Object.keys(printed)).toEqual(settingsFor(kind).map((def) => def.name));
    expect(JSON.parse(JSON.stringify(printed))).toEqual(printed);
  });

  it('shows JSON values: booleans, numbers, normalized durations, lists, maps, null', () => {
    const { settings } = loadSettings(
      'docker',
      { ...REQUIRED_ENV.docker, SVC_RUNNER_LABELS: 'a:1', SVC_CPU_SET: '0-1' },
      { cwd: '/' },
    );
    const printed = printableSettings('docker', settings);
    expect(printed).toMatchObject({
      SVC_CONTAINER_STREAM_PULL: true,
      SVC_CPU_SHARES: 1024,
      SVC_RUNNER_CAPACITY: 2,
      SVC_RUNNER_LABELS: { a: '1' },
      SVC_CPU_SET: ['0-1'],
      SVC_HTTP_BIND: ':3000',
      SVC_HTTP_HOST: '',
      SVC_RUNNER_MAX_PROCS: null,
    });
  });

  it('redacts secrets, and only the secret part of a datasource, a seeded user and runner secrets', () => {
    const server = loadSettings(
      'server',
      {
        ...REQUIRED_ENV.server,
        SVC_SCMC_CLIENT_ID: 'public-id',
        SVC_SCMC_CLIENT_SECRET: 'client-secret',
        SVC_DATABASE_DRIVER: 'sql_a',
        SVC_DATABASE_DATASOURCE: 'ci:db-password@tcp(db:3306)/ci?parseTime=true',
        SVC_USER_CREATE: `username:bot,machine:true,token:${TOKEN}`,
        SVC_COOKIE_SECRET: 'cookie-secret',
      },
      { cwd: '/' },
    ).settings;
    const printed = printableSettings('server', server);
    expect(printed).toMatchObject({
      SVC_RPC_SECRET: '[redacted]',
      SVC_SCMC_CLIENT_ID: 'public-id',
      SVC_SCMC_CLIENT_SECRET: '[redacted]',
      SVC_COOKIE_SECRET: '[redacted]',
      SVC_DATABASE_DATASOURCE: 'ci:[redacted]@tcp(db:3306)/ci?parseTime=true',
      SVC_USER_CREATE: { username: 'bot', machine: true, admin: false, token: '[redacted]' },
      SVC_DATABASE_SECRET: null,
      SVC_GIT_PASSWORD: null,
    });
    const text = JSON.stringify(printed);
    for (const secret of ['client-secret', 'db-password', TOKEN, 'cookie-secret', 'rpc-secret']) {
      expect(text).not.toContain(secret);
    }
    const docker = loadSettings(
      'docker',
      { ...REQUIRED_ENV.docker, SVC_RUNNER_SECRETS: 'npm:tok1,gh:tok2' },
      { cwd: '/' },
    );
    expect(printableSettings('docker', docker.settings).SVC_RUNNER_SECRETS).toEqual({
      npm: '[redacted]',
      gh: '[redacted]',
    });
  });

  it('shows shell-share fingerprints, which are not secret', () => {
    const { settings } = loadSettings(
      'docker',
      {
        ...REQUIRED_ENV.docker,
        SVC_SHELLSHARE_HOST: 'share.example.com',
        SVC_SHELLSHARE_PORT: '22',
        SVC_SHELLSHARE_FINGERPRINT_ED25519: 'SHA256:abc',
      },
      { cwd: '/' },
    );
    expect(printableSettings('docker', settings).SVC_SHELLSHARE_FINGERPRINT_ED25519).toBe('SHA256:abc');
  });
});
