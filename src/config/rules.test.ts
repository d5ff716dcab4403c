import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REQUIRED_ENV } from '../../test/fixtures/spec-settings.js';
import { InvalidSettingsError, type SettingProblem } from '../core/errors.js';
import type { SettingsKind } from './kinds.js';
import { loadSettings } from './load.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-rules-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const FILE = join(dir, 'file.pem');
writeFileSync(FILE, 'x');

function problems(kind: SettingsKind, env: Record<string, string>): SettingProblem[] {
  try {
    loadSettings(kind, { ...REQUIRED_ENV[kind], ...env }, { cwd: dir });
  } catch (error) {
    if (error instanceof InvalidSettingsError) return [...error.problems];
    throw error;
  }
  return [];
}

/** Settings that need another: [kind, the setting, what it needs, a value for each]. */
const NEEDS: readonly (readonly [SettingsKind, string, string, string, string])[] = [
  ['server', 'SVC_TLS_CERT', 'SVC_TLS_KEY', FILE, FILE],
  ['server', 'SVC_TLS_KEY', 'SVC_TLS_CERT', FILE, FILE],
  ['server', 'SVC_CONVERT_PLUGIN_SECRET', 'SVC_CONVERT_PLUGIN_ENDPOINT', 's', 'https://c.example.com'],
  [
    'server',
    'SVC_CONVERT_PLUGIN_EXTENSION',
    'SVC_CONVERT_PLUGIN_ENDPOINT',
    '.jsonnet',
    'https://c.example.com',
  ],
  ['server', 'SVC_VALIDATE_PLUGIN_SECRET', 'SVC_VALIDATE_PLUGIN_ENDPOINT', 's', 'https://v.example.com'],
  ['server', 'SVC_WEBHOOK_SECRET', 'SVC_WEBHOOK_ENDPOINT', 's', 'https://w.example.com'],
  ['docker', 'SVC_ENV_PLUGIN_TOKEN', 'SVC_ENV_PLUGIN_ENDPOINT', 't', 'https://e.example.com'],
  ['ssh', 'SVC_ENV_PLUGIN_TOKEN', 'SVC_ENV_PLUGIN_ENDPOINT', 't', 'https://e.example.com'],
  ['kubernetes', 'SVC_REGISTRY_PLUGIN_TOKEN', 'SVC_REGISTRY_PLUGIN_ENDPOINT', 't', 'https://r.example.com'],
  ['nomad', 'SVC_SECRET_PLUGIN_TOKEN', 'SVC_SECRET_PLUGIN_ENDPOINT', 't', 'https://s.example.com'],
  ['server', 'SVC_SCMA_CLIENT_ID', 'SVC_SCMA_CLIENT_SECRET', 'id', 'secret'],
  ['server', 'SVC_SCMA_CLIENT_SECRET', 'SVC_SCMA_CLIENT_ID', 'secret', 'id'],
  ['server', 'SVC_SCMC_CLIENT_ID', 'SVC_SCMC_CLIENT_SECRET', 'id', 'secret'],
  ['server', 'SVC_SCMC_CLIENT_SECRET', 'SVC_SCMC_CLIENT_ID', 'secret', 'id'],
  ['server', 'SVC_SCMD_CLIENT_ID', 'SVC_SCMD_CLIENT_SECRET', 'id', 'secret'],
  ['server', 'SVC_SCMD_CLIENT_SECRET', 'SVC_SCMD_CLIENT_ID', 'secret', 'id'],
  ['server', 'SVC_SERVER_PROXY_HOST', 'SVC_SERVER_PROXY_PROTO', 'proxy.example.com', 'https'],
  ['server', 'SVC_SERVER_PROXY_PROTO', 'SVC_SERVER_PROXY_HOST', 'https', 'proxy.example.com'],
  ['server', 'SVC_OBJSTORE_ENDPOINT', 'SVC_OBJSTORE_BUCKET', 'https://s3.example.com', 'logs'],
  ['server', 'SVC_OBJSTORE_PREFIX', 'SVC_OBJSTORE_BUCKET', 'logs/', 'logs'],
  ['server', 'SVC_OBJSTORE_PATH_STYLE', 'SVC_OBJSTORE_BUCKET', 'true', 'logs'],
  ['docker', 'SVC_SHELLSHARE_HOST', 'SVC_SHELLSHARE_PORT', 'share.example.com', '2222'],
  ['docker', 'SVC_SHELLSHARE_PORT', 'SVC_SHELLSHARE_HOST', '2222', 'share.example.com'],
];

describe('settings that need another', () => {
  it.each(NEEDS)(
    '%s: %s without %s is a problem; with it, none',
    (kind, setting, needed, value, neededValue) => {
      expect(problems(kind, { [setting]: value })).toEqual([
        { setting, message: expect.stringMatching(new RegExp(`^is set but ${needed} is not; `)) as unknown },
      ]);
      expect(problems(kind, { [setting]: value, [needed]: neededValue })).toEqual([]);
    },
  );

  it('a shell-share fingerprint needs the self-hosted server', () => {
    expect(problems('docker', { SVC_SHELLSHARE_FINGERPRINT_RSA: 'SHA256:x' })).toEqual([
      {
        setting: 'SVC_SHELLSHARE_FINGERPRINT_RSA',
        message: expect.stringMatching(/SVC_SHELLSHARE_HOST is not/) as unknown,
      },
    ]);
  });

  it('SCMF needs its private key and its server', () => {
    expect(problems('server', { SVC_SCMF_CONSUMER_KEY: 'key' }).map((p) => p.message)).toEqual([
      expect.stringMatching(/^is set but SVC_SCMF_PRIVATE_KEY is not/),
      expect.stringMatching(/^is set but SVC_SCMF_SERVER is not/),
    ]);
    expect(
      problems('server', {
        SVC_SCMF_CONSUMER_KEY: 'key',
        SVC_SCMF_PRIVATE_KEY: FILE,
        SVC_SCMF_SERVER: 'https://bitbucket.example.com',
      }),
    ).toEqual([]);
  });
});

describe('TLS', () => {
  it('refuses an automatic certificate together with certificate files', () => {
    expect(problems('server', { SVC_TLS_AUTOCERT: 'true', SVC_TLS_CERT: FILE, SVC_TLS_KEY: FILE })).toEqual([
      {
        setting: 'SVC_TLS_AUTOCERT',
        message: expect.stringMatching(/^is true while SVC_TLS_CERT/) as unknown,
      },
    ]);
    expect(problems('server', { SVC_TLS_AUTOCERT: 'false', SVC_TLS_CERT: FILE, SVC_TLS_KEY: FILE })).toEqual(
      [],
    );
    expect(problems('server', { SVC_TLS_AUTOCERT: 'true' })).toEqual([]);
  });
});

describe('Gitea', () => {
  it('needs its server and its OAuth2 application together', () => {
    expect(problems('server', { SVC_SCMB_SERVER: 'https://gitea.example.com' })).toEqual([
      {
        setting: 'SVC_SCMB_SERVER',
        message: expect.stringContaining(
          'svc logs users in to a Gitea server through its OAuth2 application',
        ) as unknown,
      },
    ]);
    expect(
      problems('server', { SVC_SCMB_CLIENT_ID: 'id', SVC_SCMB_CLIENT_SECRET: 's' }).map((p) => p.setting),
    ).toEqual(['SVC_SCMB_CLIENT_ID']);
    const server = { SVC_SCMB_SERVER: 'https://gitea.example.com' };
    expect(problems('server', { ...server, SVC_SCMB_CLIENT_ID: 'id' }).map((p) => p.message)).toEqual([
      expect.stringMatching(/^is set but SVC_SCMB_CLIENT_SECRET is not; an OAuth application needs both/),
    ]);
    expect(problems('server', { ...server, SVC_SCMB_CLIENT_ID: 'id', SVC_SCMB_CLIENT_SECRET: 's' })).toEqual(
      [],
    );
  });
});

describe('one git provider', () => {
  it.each([
    [
      {
        SVC_SCMC_CLIENT_ID: 'id',
        SVC_SCMC_CLIENT_SECRET: 's',
        SVC_SCMD_CLIENT_ID: 'id',
        SVC_SCMD_CLIENT_SECRET: 's',
      },
      'SVC_SCMD_CLIENT_ID',
    ],
    [
      { SVC_SCMA_CLIENT_ID: 'id', SVC_SCMA_CLIENT_SECRET: 's', SVC_SCME_SERVER: 'https://gogs.example.com' },
      'SVC_SCME_SERVER',
    ],
    [
      { SVC_SCMB_SERVER: 'https://gitea.example.com', SVC_SCMF_SERVER: 'https://bb.example.com' },
      'SVC_SCMF_SERVER',
    ],
  ])('refuses two providers at once (%o)', (env, second) => {
    const found = problems('server', env).filter((problem) => problem.message.includes('git provider'));
    expect(found).toEqual([
      { setting: second, message: expect.stringMatching(/configure only one$/) as unknown },
    ]);
  });

  it('reports every provider beyond the first', () => {
    const env = {
      SVC_SCMB_SERVER: 'https://g.example.com',
      SVC_SCMB_CLIENT_ID: 'id',
      SVC_SCMB_CLIENT_SECRET: 's',
      SVC_SCME_SERVER: 'https://o.example.com',
      SVC_SCMF_SERVER: 'https://b.example.com',
    };
    expect(problems('server', env).map((problem) => problem.setting)).toEqual([
      'SVC_SCME_SERVER',
      'SVC_SCMF_SERVER',
    ]);
  });

  it('does not count the default GitHub and GitLab addresses as configuring a provider', () => {
    expect(
      problems('server', {
        SVC_SCMB_CLIENT_ID: 'id',
        SVC_SCMB_CLIENT_SECRET: 's',
        SVC_SCMB_SERVER: 'https://g.example.com',
      }),
    ).toEqual([]);
  });
});

describe('Kubernetes requests and limits', () => {
  it('refuses a request above its limit', () => {
    expect(
      problems('kubernetes', { SVC_RESOURCE_REQUEST_CPU: '2000', SVC_RESOURCE_LIMIT_CPU: '1000' }),
    ).toEqual([
      {
        setting: 'SVC_RESOURCE_REQUEST_CPU',
        message: expect.stringMatching(/^is above SVC_RESOURCE_LIMIT_CPU/) as unknown,
      },
    ]);
    expect(
      problems('kubernetes', { SVC_RESOURCE_REQUEST_MEMORY: '1Gi', SVC_RESOURCE_LIMIT_MEMORY: '512Mi' }),
    ).toHaveLength(1);
    expect(
      problems('kubernetes', { SVC_RESOURCE_REQUEST_MEMORY: '512Mi', SVC_RESOURCE_LIMIT_MEMORY: '512MiB' }),
    ).toEqual([]);
  });
});

describe('rules only look at settings the kind accepts', () => {
  it('ignores a runner plugin token given to a kind that does not accept it', () => {
    expect(problems('kubernetes', { SVC_ENV_PLUGIN_TOKEN: 't' })).toEqual([]);
    expect(problems('server', { SVC_SHELLSHARE_HOST: 'share.example.com' })).toEqual([]);
  });
});
