import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../config/index.js';
import type { CommandIO } from './io.js';
import { migrateCommand } from './migrate.js';

const cwd = mkdtempSync(join(tmpdir(), 'svc-migrate-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

/** A Drone 2 server as Drone's docs install it: GitHub, PostgreSQL, S3 logs, an administrator. */
const DRONE_SERVER = `
DRONE_GITHUB_CLIENT_ID=0123456789abcdef0123
DRONE_GITHUB_CLIENT_SECRET=0123456789abcdef0123456789abcdef01234567
DRONE_GITHUB_API_SERVER=https://api.github.com
DRONE_RPC_SECRET=super-duper-secret-with-32-chars!
DRONE_SERVER_HOST=drone.example.com
DRONE_SERVER_PROTO=https
DRONE_DATABASE_DRIVER=postgres
DRONE_DATABASE_DATASOURCE=postgres://drone:pw@db:5432/svc?sslmode=disable
DRONE_S3_BUCKET=ci-logs
DRONE_S3_ENDPOINT=https://minio.example.com
DRONE_S3_PATH_STYLE=true
DRONE_USER_CREATE=username:octocat,admin:true
DRONE_USER_FILTER=acme,octocat
DRONE_COOKIE_SECRET=0123456789abcdef0123456789abcdef
DRONE_PROMETHEUS_ANONYMOUS_ACCESS=true
DRONE_CRON_INTERVAL=30m
DRONE_REDIS_ADDR=redis:6379
DRONE_RUNNER_CAPACITY=2
DRONE_TLS_AUTOCERT=false
# not Drone's
PATH=/usr/bin
`;

function run(args: readonly string[], env: Record<string, string | undefined> = {}) {
  let stdout = '';
  let stderr = '';
  const io: CommandIO = { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), cwd };
  const code = migrateCommand(args, env, io);
  return { code, stdout, stderr };
}

/** The NAME=value lines of an env file. */
function settingsOf(text: string): Record<string, string> {
  const lines = text.split('\n').filter((line) => /^[A-Z_]+=/.test(line));
  return Object.fromEntries(
    lines.map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}

describe('svc migrate settings', () => {
  it('prints the svc settings a Drone server stands for, which svc then loads without a problem', () => {
    const file = join(cwd, 'drone.env');
    writeFileSync(file, DRONE_SERVER);
    const result = run(['settings', file]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const settings = settingsOf(result.stdout);
    expect(settings).toEqual({
      SVC_SCMC_CLIENT_ID: '0123456789abcdef0123',
      SVC_SCMC_CLIENT_SECRET: '0123456789abcdef0123456789abcdef01234567',
      SVC_RPC_SECRET: 'super-duper-secret-with-32-chars!',
      SVC_SERVER_HOST: 'drone.example.com',
      SVC_SERVER_PROTO: 'https',
      SVC_DATABASE_DRIVER: 'sql_b',
      SVC_DATABASE_DATASOURCE: 'postgres://drone:pw@db:5432/svc?sslmode=disable',
      SVC_OBJSTORE_BUCKET: 'ci-logs',
      SVC_OBJSTORE_ENDPOINT: 'https://minio.example.com',
      SVC_OBJSTORE_PATH_STYLE: 'true',
      SVC_USER_CREATE: 'username:octocat,admin:true',
      SVC_USER_FILTER: 'acme,octocat',
      SVC_COOKIE_SECRET: '0123456789abcdef0123456789abcdef',
      SVC_METRICS_ANONYMOUS_ACCESS: 'true',
      SVC_CRON_INTERVAL: '30m',
      SVC_TLS_AUTOCERT: 'false',
    });
    expect(() => loadSettings('server', settings, { cwd })).not.toThrow();
    // What has no svc setting is named, with the reason; the database is never Drone's own.
    expect(result.stdout).toContain('# DRONE_DATABASE_DRIVER: Drone\'s "postgres"');
    expect(result.stdout).toContain("never Drone's own");
    expect(result.stdout).toContain('# DRONE_REDIS_ADDR: several svc servers share the database');
    expect(result.stdout).toContain('# DRONE_GITHUB_API_SERVER: svc derives the API address');
    expect(result.stdout).toContain('# DRONE_RUNNER_CAPACITY: SVC_RUNNER_CAPACITY is a setting of');
    expect(result.stdout).not.toMatch(/^(# )?PATH/m);
  });

  it('reads a runner from the environment with --kind', () => {
    const result = run(['settings', '--kind', 'docker'], {
      DRONE_RPC_PROTO: 'https',
      DRONE_RPC_HOST: 'drone.example.com',
      DRONE_RPC_SECRET: 'super-duper-secret-with-32-chars!',
      DRONE_RUNNER_CAPACITY: '2',
      DRONE_RUNNER_NAME: 'builder-1',
      DRONE_MEMORY_LIMIT: '2147483648',
      DRONE_NO_SUCH_THING: 'x',
    });
    expect(result.code).toBe(0);
    const settings = settingsOf(result.stdout);
    expect(settings).toMatchObject({
      SVC_RPC_HOST: 'drone.example.com',
      SVC_RUNNER_CAPACITY: '2',
      SVC_RUNNER_NAME: 'builder-1',
      SVC_MEMORY_LIMIT: '2147483648',
    });
    expect(() => loadSettings('docker', settings, { cwd })).not.toThrow();
    expect(result.stdout).toContain('# DRONE_NO_SUCH_THING: svc has no such setting');
  });

  it('says what is wrong with its input', () => {
    expect(run(['settings', join(cwd, 'missing.env')])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('missing.env') as unknown,
    });
    expect(run(['settings', '--kind', 'jenkins']).stderr).toContain('unknown kind "jenkins"');
    expect(run(['settings'], { PATH: '/usr/bin' })).toMatchObject({
      code: 1,
      stderr: 'svc migrate settings: no DRONE_* variables in the environment\n',
    });
    expect(run(['jenkins']).code).toBe(2);
  });
});
