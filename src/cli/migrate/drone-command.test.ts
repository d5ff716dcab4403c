import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { droneProducts, type DroneTestDatabase } from '../../../test/support/drone-database.js';
import { DRONE_KEY, seedDrone, VALUES } from '../../../test/support/drone-seed.js';
import { openStore } from '../../store/index.js';
import type { CommandIO } from '../io.js';
import { migrateCommand } from '../migrate.js';

const [sqlite] = droneProducts();

/** What svc server needs, with its database in `dir`. */
function svcSettings(dir: string) {
  return {
    SVC_SERVER_HOST: 'ci.example.com',
    SVC_SERVER_PROTO: 'https',
    SVC_RPC_SECRET: 'rpc-secret-0123456789',
    SVC_SCMC_CLIENT_ID: 'client-id',
    SVC_SCMC_CLIENT_SECRET: 'client-secret',
    SVC_DATABASE_DATASOURCE: join(dir, 'svc.sqlite'),
    SVC_DATABASE_SECRET: '0123456789abcdef0123456789abcdef',
  };
}

async function runMigrate(args: readonly string[], env: Record<string, string>, cwd: string) {
  let stdout = '';
  let stderr = '';
  const io: CommandIO = { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), cwd };
  const code = await migrateCommand(args, env, io);
  return { code, stdout, stderr };
}

const run = (args: readonly string[], env: Record<string, string>, cwd: string) =>
  runMigrate(['drone', ...args], env, cwd);

describe('svc migrate drone (the command)', () => {
  let drone: DroneTestDatabase;
  let dir = '';
  beforeAll(async () => {
    drone = await sqlite!.create();
    await seedDrone(drone);
    dir = mkdtempSync(join(tmpdir(), 'svc-migrate-drone-'));
  });
  afterAll(async () => {
    await drone.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('says how it is used, also from svc migrate --help', async () => {
    const help = await run(['--help'], {}, dir);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toContain('--drone-secret KEY');
    const all = await runMigrate(['--help'], {}, dir);
    expect(all.code).toBe(0);
    expect(all.stdout).toContain('svc migrate settings');
    expect(all.stdout).toContain('svc migrate drone');
  });

  it('refuses wrong usage and a Drone key of the wrong length, naming the option', async () => {
    expect(await run(['--from'], svcSettings(dir), dir)).toMatchObject({ code: 2 });
    expect((await run(['--from', '--history'], svcSettings(dir), dir)).stderr).toContain(
      '--from needs a value',
    );
    expect((await run(['--bogus'], svcSettings(dir), dir)).stderr).toContain('unknown option --bogus');
    const short = await run(['--from', drone.from, '--drone-secret', 'short'], svcSettings(dir), dir);
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('--drone-secret (DRONE_DATABASE_SECRET): expected the 32 characters');
    const missing = await run([], svcSettings(dir), dir);
    expect(missing.stderr).toContain('--from: Drone’s datasource is required (or DRONE_DATABASE_DATASOURCE)');
  });

  it('needs svc’s server settings and refuses to write into Drone’s own database', async () => {
    const unset = await run(['--from', drone.from], {}, dir);
    expect(unset.code).toBe(2);
    expect(unset.stderr).toContain('SVC_SERVER_HOST');
    const same = await run(
      ['--from', drone.from],
      { ...svcSettings(dir), SVC_DATABASE_DATASOURCE: drone.from },
      dir,
    );
    expect(same.code).toBe(2);
    expect(same.stderr).toContain('--from and SVC_DATABASE_DATASOURCE name the same database');
  });

  it('stops with exit code 1 and the flag’s name without Drone’s key, or with a wrong one', async () => {
    const none = await run(['--from', drone.from], svcSettings(dir), dir);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/holds \d+ encrypted values .*--drone-secret \(DRONE_DATABASE_SECRET\)/);
    const wrong = await run(
      ['--from', drone.from],
      { ...svcSettings(dir), DRONE_DATABASE_SECRET: 'x'.repeat(32) },
      dir,
    );
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('is not the key Drone encrypted its values with');
    // Neither mistake opens svc's database.
    expect(existsSync(svcSettings(dir).SVC_DATABASE_DATASOURCE)).toBe(false);
  });

  it('tells a database that is not Drone’s (svc’s own, say) from Drone’s', async () => {
    const svcOwn = join(dir, 'own.sqlite');
    await (await openStore({ datasource: { driver: 'embedded_sql', path: svcOwn } })).close();
    const { code, stderr } = await run(['--from', svcOwn], svcSettings(dir), dir);
    expect(code).toBe(1);
    expect(stderr).toContain(`the SQLite database ${svcOwn} is not a Drone database: it has no table cron`);
  });

  it('with --dry-run reports what it would bring across and leaves svc’s database alone', async () => {
    const env = { ...svcSettings(dir), DRONE_DATABASE_SECRET: DRONE_KEY };
    const { code, stdout, stderr } = await run(['--from', drone.from, '--dry-run', '--history'], env, dir);
    expect(code).toBe(0);
    expect(stdout).toContain('dry run: nothing was written to the SQLite database');
    expect(stdout).toMatch(/users\s+3\s+0\s+0/);
    expect(stderr).toContain('svc migrate drone: builds of octocat/hello: 2 imported');
    expect(existsSync(env.SVC_DATABASE_DATASOURCE)).toBe(false);
  });

  it('brings Drone across, keeps templates as files too, and prints no secret value', async () => {
    const env = { ...svcSettings(dir), DRONE_DATABASE_SECRET: DRONE_KEY };
    const { code, stdout, stderr } = await run(
      ['--from', drone.from, '--save-templates', 'templates'],
      env,
      dir,
    );
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/secrets\s+3\s+0\s+2/);
    expect(stdout).toMatch(/templates\s+1\s+0\s+0/);
    expect(readFileSync(join(dir, 'templates/octocat/plugin.yaml'), 'utf8')).toContain('kind: pipeline');
    for (const value of Object.values(VALUES)) expect(stdout + stderr).not.toContain(value);
    const again = await run(['--from', drone.from], env, dir);
    expect(again.stdout).toMatch(/secrets\s+0\s+3\s+2/);
  });
});
