import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REQUIRED_ENV } from '../../test/fixtures/spec-settings.js';
import { SETTINGS_KINDS } from '../config/index.js';
import { configPrintCommand } from './config-print.js';
import type { CommandIO } from './io.js';

// Path settings are resolved against a temporary working directory: no real user file is touched.
const cwd = mkdtempSync(join(tmpdir(), 'svc-config-print-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

function run(args: readonly string[], env: Record<string, string | undefined> = {}) {
  let stdout = '';
  let stderr = '';
  const io: CommandIO = {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    cwd,
  };
  const code = configPrintCommand(args, env, io);
  return { code, stdout, stderr };
}

/** Cluster runners' images named in a registry: left at svc's local names they warn on stderr. */
const REGISTRY_IMAGES: Partial<Record<string, Record<string, string>>> = {
  nomad: { SVC_JOB_IMAGE: 'registry.example.com/svc/svc:1' },
  kubernetes: {
    SVC_IMAGE_PLACEHOLDER: 'registry.example.com/svc/placeholder:1',
    SVC_IMAGE_CLONE: 'registry.example.com/svc/git:1',
  },
};

describe('svc config print <kind>', () => {
  it.each(SETTINGS_KINDS)('%s: prints the settings as indented JSON and exits 0', (kind) => {
    const result = run([kind], { ...REQUIRED_ENV[kind], ...REGISTRY_IMAGES[kind] });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout.endsWith('}\n')).toBe(true);
    const printed = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(result.stdout).toBe(`${JSON.stringify(printed, null, 2)}\n`);
    expect(printed.SVC_RPC_SECRET).toBe('[redacted]');
  });

  it.each(SETTINGS_KINDS)(
    '%s: invalid settings exit 2 with one line per problem, each starting with the setting',
    (kind) => {
      const result = run([kind], { SVC_DEBUG: 'maybe', SVC_CRON_INTERVAL: 'soon' });
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      const lines = result.stderr.trimEnd().split('\n');
      const required = Object.keys(REQUIRED_ENV[kind]);
      const bad = kind === 'server' ? 'SVC_CRON_INTERVAL' : 'SVC_DEBUG';
      const problems = lines.filter((line) => !line.startsWith('warning: '));
      expect(problems.map((line) => line.split(':')[0]).sort()).toEqual([...required, bad].sort());
      for (const line of problems) expect(line).toMatch(/^SVC_[A-Z0-9_]+: \S/);
    },
  );

  it('prints path settings resolved against the working directory', () => {
    writeFileSync(join(cwd, 'cert.pem'), 'x');
    writeFileSync(join(cwd, 'key.pem'), 'x');
    const result = run(['server'], {
      ...REQUIRED_ENV.server,
      SVC_TLS_CERT: 'cert.pem',
      SVC_TLS_KEY: 'key.pem',
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      SVC_TLS_CERT: join(cwd, 'cert.pem'),
      SVC_TLS_KEY: join(cwd, 'key.pem'),
    });
  });

  it('reports a missing file by setting and path', () => {
    const result = run(['docker'], { ...REQUIRED_ENV.docker, SVC_RUNNER_ENV_FILE: 'absent.env' });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `SVC_RUNNER_ENV_FILE: file "absent.env" (${join(cwd, 'absent.env')}) does not exist; expected the path of a readable file (relative paths start at the working directory)\n`,
    );
  });

  it('prints warnings on stderr and still exits 0', () => {
    const result = run(['ssh'], {
      ...REQUIRED_ENV.ssh,
      SVC_RUNNER_LABELS: 'os:linux',
      SVC_CPU_SHARES: '512',
      SVC_TEST_X: '1',
    });
    expect(result.code).toBe(0);
    expect(result.stderr.trimEnd().split('\n')).toEqual([
      'warning: SVC_CPU_SHARES: is not a setting of the ssh runner and is ignored; it is accepted by the docker runner and the nomad runner',
    ]);
    expect(JSON.parse(result.stdout)).toMatchObject({ SVC_RUNNER_LABELS: { os: 'linux' } });
  });

  it('shows warnings that explain a problem before the problems', () => {
    const result = run(['server'], {
      SVC_SERVER_PROTO: 'https',
      SVC_RPC_SECRET: 's',
      SVC_SERVR_HOST: 'ci.example.com',
    });
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n').slice(0, 2)).toEqual([
      'warning: SVC_SERVR_HOST: is not a known setting and is ignored; did you mean SVC_SERVER_HOST?',
      expect.stringMatching(/^SVC_SERVER_HOST: is required but not set; /),
    ]);
  });

  it.each([[[]], [['runner']], [['docker', 'extra']]])('refuses %j with the usage and exit 2', (args) => {
    const result = run(args, REQUIRED_ENV.docker);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^svc config print: (missing kind|unknown kind "runner"|unexpected extra)\n\nUsage: svc config print <kind>/,
    );
  });

  it.each(['--help', '-h'])('%s prints the usage and exits 0', (flag) => {
    const result = run([flag]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain('Usage: svc config print <kind>');
    expect(result.stdout).toContain('server, docker, nomad, vm, kubernetes, ssh');
  });
});
