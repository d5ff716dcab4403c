import { describe, expect, it } from 'vitest';
import { REQUIRED_ENV } from '../../test/fixtures/spec-settings.js';
import { loadSettings } from './load.js';
import { settingWarnings } from './warnings.js';
import { closestName, editDistance } from './suggest.js';

describe('settingWarnings', () => {
  it('names a setting of another kind and the kinds that accept it', () => {
    const images = {
      SVC_IMAGE_PLACEHOLDER: 'registry.example.com/svc/placeholder',
      SVC_IMAGE_CLONE: 'r/git',
    };
    expect(settingWarnings('kubernetes', { SVC_CPU_SHARES: '512', ...images })).toEqual([
      {
        setting: 'SVC_CPU_SHARES',
        message:
          'is not a setting of the kubernetes runner and is ignored; it is accepted by the docker runner and the nomad runner',
      },
    ]);
    expect(settingWarnings('server', { SVC_RPC_HOST: 'x' })[0]?.message).toBe(
      'is not a setting of the server and is ignored; it is accepted by the docker runner, the nomad runner, the vm runner, the kubernetes runner and the ssh runner',
    );
  });

  it('warns a cluster runner whose images keep svc’s local names, which Docker Hub would answer', () => {
    expect(settingWarnings('kubernetes', {}).map((w) => w.setting)).toEqual([
      'SVC_IMAGE_PLACEHOLDER',
      'SVC_IMAGE_CLONE',
    ]);
    expect(settingWarnings('kubernetes', {})[0]?.message).toMatch(/pulls that name from Docker Hub/);
    // Either name of the clone image will do; set, none is left.
    const own = { SVC_IMAGE_PLACEHOLDER: 'registry.example.com/svc/placeholder:1' };
    expect(
      settingWarnings('kubernetes', { ...own, SVC_IMAGE_CLONE: 'registry.example.com/svc/git:1' }),
    ).toEqual([]);
    expect(settingWarnings('nomad', {}).map((w) => w.setting)).toEqual(['SVC_JOB_IMAGE']);
    expect(settingWarnings('nomad', { SVC_JOB_IMAGE: 'registry.example.com/svc/svc:1' })).toEqual([]);
    // A Docker runner's engine never pulls svc/git: its clone step's policy is `never`.
    expect(settingWarnings('docker', {})).toEqual([]);
  });

  it('suggests the closest known name for an unknown one', () => {
    expect(settingWarnings('server', { SVC_SERVR_HOST: 'x' })).toEqual([
      {
        setting: 'SVC_SERVR_HOST',
        message: 'is not a known setting and is ignored; did you mean SVC_SERVER_HOST?',
      },
    ]);
    expect(settingWarnings('docker', { SVC_RUNNER_CAPACTY: '2' })[0]?.message).toMatch(
      /did you mean SVC_RUNNER_CAPACITY\?$/,
    );
  });

  it('suggests nothing when no name is close', () => {
    expect(settingWarnings('server', { SVC_COMPLETELY_DIFFERENT: 'x' })).toEqual([
      { setting: 'SVC_COMPLETELY_DIFFERENT', message: 'is not a known setting and is ignored' },
    ]);
  });

  it('ignores SVC_TEST_* variables, other prefixes and accepted settings', () => {
    expect(
      settingWarnings('server', {
        SVC_TEST_DATABASE: 'x',
        PATH: '/bin',
        DRONE_RPC_HOST: 'x',
        SVC_SERVER_HOST: 'x',
      }),
    ).toEqual([]);
  });

  it('warns that the dashboard stays disabled without a password', () => {
    expect(settingWarnings('docker', { SVC_UI_USERNAME: 'admin' })).toEqual([
      {
        setting: 'SVC_UI_USERNAME',
        message: 'is set without SVC_UI_PASSWORD, so the dashboard stays disabled',
      },
    ]);
    expect(settingWarnings('docker', { SVC_UI_USERNAME: 'admin', SVC_UI_PASSWORD: 'pw' })).toEqual([]);
  });

  it('has no warning for SVC_RUNNER_LABELS on any runner kind: the ssh runner honours it too', () => {
    expect(settingWarnings('ssh', { SVC_RUNNER_LABELS: 'a:b' })).toEqual([]);
    expect(settingWarnings('docker', { SVC_RUNNER_LABELS: 'a:b' })).toEqual([]);
  });

  it('are returned by loadSettings next to the settings', () => {
    const { warnings } = loadSettings(
      'ssh',
      { ...REQUIRED_ENV.ssh, SVC_RUNNER_LABELS: 'a:b', SVC_FOO: '1' },
      { cwd: '/' },
    );
    expect(warnings.map((warning) => warning.setting)).toEqual(['SVC_FOO']);
  });
});

describe('closestName', () => {
  it('measures edits', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('same', 'same')).toBe(0);
  });

  it('picks the nearest candidate within reach', () => {
    expect(closestName('SVC_CRON_INTERVL', ['SVC_CRON_INTERVAL', 'SVC_CRON_DISABLED'])).toBe(
      'SVC_CRON_INTERVAL',
    );
    expect(closestName('SVC_XYZ', ['SVC_CRON_INTERVAL'])).toBeUndefined();
  });
});
