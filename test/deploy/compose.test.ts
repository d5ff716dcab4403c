/**
 * deploy/compose: Debian's docker-compose checks compose.yaml against the Compose specification's
 * schema and resolves it (`docker-compose config`) with the .env and server.env an operator writes
 * from the examples; the resolved server and runner environments are then loaded as svc loads them.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { STOP_GRACE_MS, STOP_REPORT_MS } from '../../src/cli/runner.js';
import { gitProvider } from '../../src/cli/server/provider.js';
import { parseDuration } from '../../src/config/index.js';
import { requiredCommand } from '../support/commands.js';
import { DEPLOY, envFile, hexSecret, loadCleanly, VERSION } from './files.js';

interface Service {
  image: string;
  pull_policy?: string;
  command: string[];
  environment: Record<string, string | number>;
  ports?: { target: number; published: number | string }[];
  volumes?: string[];
  group_add?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  stop_grace_period?: string;
}

const { skip } = requiredCommand('docker-compose', 'docker-compose');
const SOURCE = join(DEPLOY, 'compose');

/** Runs `docker-compose config` in `dir` with nothing of the test's environment but PATH. */
function composeConfig(dir: string): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync('docker-compose', ['-f', 'compose.yaml', 'config'], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A copy of deploy/compose, as an operator has it before writing .env and server.env. */
function copyOfSource(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-compose-'));
  for (const file of readdirSync(SOURCE)) copyFileSync(join(SOURCE, file), join(dir, file));
  return dir;
}

/** KEY=VALUE lines, as an operator writes .env and server.env. */
const envLines = (env: Record<string, string>): string =>
  Object.entries(env)
    .map(([name, value]) => `${name}=${value}\n`)
    .join('');

/** The environment a service gets, as the strings a process sees. */
const envOf = (service: Service): Record<string, string> =>
  Object.fromEntries(Object.entries(service.environment).map(([name, value]) => [name, String(value)]));

describe.skipIf(skip)('deploy/compose with docker-compose config', () => {
  const dirs: string[] = [];
  const dotEnv = {
    SVC_RPC_SECRET: hexSecret(),
    SVC_COOKIE_SECRET: hexSecret(),
    SVC_DATABASE_SECRET: hexSecret(),
    POSTGRES_PASSWORD: hexSecret(),
    DOCKER_GID: '998',
  };
  let names: string[];
  let server: Service;
  let runner: Service;

  beforeAll(() => {
    const dir = copyOfSource();
    dirs.push(dir);
    // env.example lists exactly what compose.yaml reads from .env.
    expect(Object.keys(envFile(join(dir, 'env.example'))).sort()).toEqual(Object.keys(dotEnv).sort());
    writeFileSync(join(dir, '.env'), envLines(dotEnv));
    const serverEnv = { ...envFile(join(dir, 'server.env.example')), SVC_SCMC_CLIENT_ID: 'id' };
    writeFileSync(join(dir, 'server.env'), envLines({ ...serverEnv, SVC_SCMC_CLIENT_SECRET: 'secret' }));
    const result = composeConfig(dir);
    if (result.status !== 0) throw new Error(`docker-compose config failed: ${result.stderr}`);
    const { services } = parse(result.stdout) as { services: Partial<Record<string, Service>> };
    const service = (name: string): Service => {
      const found = services[name];
      if (found === undefined) throw new Error(`compose.yaml has no service ${name}`);
      return found;
    };
    names = Object.keys(services);
    server = service('server');
    runner = service('runner');
  });

  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('runs PostgreSQL, the server and one Docker runner', () => {
    expect(names.sort()).toEqual(['postgres', 'runner', 'server']);
    expect(server.command).toEqual(['server']);
    expect(runner.command).toEqual(['runner', 'docker']);
  });

  it('runs svc from the local image of this version and never pulls it', () => {
    for (const service of [server, runner]) {
      expect(service.image).toBe(`svc/svc:${VERSION}`);
      expect(service.pull_policy).toBe('never');
    }
  });

  it('gives the server settings svc accepts without a warning, and a git provider', () => {
    const { settings } = loadCleanly('server', envOf(server));
    expect(gitProvider(settings)).toMatchObject({ provider: expect.anything() as unknown });
    expect(settings.SVC_DATABASE_DATASOURCE).toMatchObject({ driver: 'sql_b' });
    // The datasource names the postgres service with its password from .env.
    expect(server.environment.SVC_DATABASE_DATASOURCE).toBe(
      `postgres://svc:${dotEnv.POSTGRES_PASSWORD}@postgres:5432/svc?sslmode=disable`,
    );
    expect(server.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
  });

  it('keeps all three secrets of .env in the server, and gives the runner only the RPC secret', () => {
    expect(envOf(server)).toMatchObject({
      SVC_RPC_SECRET: dotEnv.SVC_RPC_SECRET,
      SVC_COOKIE_SECRET: dotEnv.SVC_COOKIE_SECRET,
      SVC_DATABASE_SECRET: dotEnv.SVC_DATABASE_SECRET,
    });
    const runnerEnv = envOf(runner);
    expect(runnerEnv.SVC_RPC_SECRET).toBe(dotEnv.SVC_RPC_SECRET);
    expect(Object.keys(runnerEnv).filter((name) => /SECRET/.test(name))).toEqual(['SVC_RPC_SECRET']);
  });

  it('gives the runner settings svc accepts, pointing at the server service, and the Docker socket', () => {
    const { settings } = loadCleanly('docker', envOf(runner));
    const serverPort = loadCleanly('server', envOf(server)).settings.SVC_SERVER_PORT;
    expect(`${settings.SVC_RPC_PROTO}://${settings.SVC_RPC_HOST}`).toBe(`http://server${serverPort}`);
    expect(runner.volumes).toContain('/var/run/docker.sock:/var/run/docker.sock:rw');
    expect(runner.group_add).toEqual([dotEnv.DOCKER_GID]);
    expect(runner.depends_on).toEqual({ server: { condition: 'service_healthy' } });
  });

  it('checks the health of the server and the runner at /healthz on the ports they listen on', () => {
    const serverPort = loadCleanly('server', envOf(server)).settings.SVC_SERVER_PORT;
    const runnerBind = loadCleanly('docker', envOf(runner)).settings.SVC_HTTP_BIND;
    expect(server.healthcheck?.test.join(' ')).toContain(`http://127.0.0.1${serverPort}/healthz`);
    expect(runner.healthcheck?.test.join(' ')).toContain(`http://127.0.0.1${runnerBind}/healthz`);
    expect(serverPort).toBe(':8080');
    expect(server.ports).toEqual([{ target: 8080, published: 8080 }]);
  });

  it('lets a stopped runner finish its running stages and report them', () => {
    const grace = parseDuration(runner.stop_grace_period ?? '');
    expect(grace).toBeGreaterThanOrEqual(STOP_GRACE_MS + STOP_REPORT_MS);
  });

  it('refuses to start without .env, naming what is missing', () => {
    const dir = copyOfSource();
    dirs.push(dir);
    copyFileSync(join(dir, 'server.env.example'), join(dir, 'server.env'));
    const result = composeConfig(dir);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/set [A-Z_]+ in \.env/);
  });
});
