/**
 * deploy/systemd: systemd's own checker (`systemd-analyze verify`) finds nothing wrong with the units
 * but the missing installation in /opt/svc; their exposure (`systemd-analyze security --offline`)
 * stays low; the keys this deployment relies on are there; and the example env files load as svc
 * loads its settings.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STOP_GRACE_MS, STOP_REPORT_MS } from '../../src/cli/runner.js';
import { gitProvider } from '../../src/cli/server/provider.js';
import { parseDuration } from '../../src/config/index.js';
import { requiredCommand } from '../support/commands.js';
import { DEPLOY, envFile, hexSecret, loadCleanly, ROOT } from './files.js';

const DIR = join(DEPLOY, 'systemd');
const UNITS = ['svc-server.service', 'svc-runner.service'] as const;
/** Where the units expect svc: a checkout after `npm ci && npm prune --omit=dev`. */
const INSTALL = '/opt/svc';

type Unit = Record<string, Record<string, string[]>>;

/** A unit file's sections and keys; a key may repeat (EnvironmentFile=, …). */
function parseUnit(path: string): Unit {
  const unit: Unit = {};
  let section: Record<string, string[]> | undefined;
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const text = line.trim();
    if (text === '' || text.startsWith('#')) continue;
    const header = /^\[(\w+)\]$/.exec(text)?.[1];
    if (header !== undefined) {
      section = unit[header] = {};
      continue;
    }
    const at = text.indexOf('=');
    if (section === undefined || at <= 0) throw new Error(`${path}: not a key in a section: ${text}`);
    (section[text.slice(0, at)] ??= []).push(text.slice(at + 1));
  }
  return unit;
}

/** A key's one value. */
function one(unit: Unit, section: string, key: string): string {
  const [value, ...more] = unit[section]?.[key] ?? [];
  if (value === undefined || more.length > 0) throw new Error(`${section}.${key} is not set once`);
  return value;
}

/** systemd's time span, as in TimeoutStopSec=17min or 90s (the forms these units use). */
const seconds = (span: string): number => (parseDuration(span.replace(/min$/, 'm')) ?? NaN) / 1000;

const { skip } = requiredCommand('systemd-analyze', 'systemd');

describe.skipIf(skip)('deploy/systemd with systemd-analyze', () => {
  it('verifies both units, with no complaint but the missing installation', () => {
    const result = spawnSync('systemd-analyze', ['verify', ...UNITS], { cwd: DIR, encoding: 'utf8' });
    const missing = `Command ${INSTALL}/node_modules/node/bin/node is not executable: No such file or directory`;
    const complaints = `${result.stdout}${result.stderr}`
      .split('\n')
      .filter((line) => line !== '' && !(line.endsWith(missing) && !existsSync(INSTALL)));
    expect(complaints).toEqual([]);
  });

  it.each(UNITS)('keeps the exposure of %s low', (unit) => {
    const result = spawnSync('systemd-analyze', ['security', '--offline=yes', unit], {
      cwd: DIR,
      encoding: 'utf8',
    });
    const level = /Overall exposure level for \S+: ([\d.]+)/.exec(result.stdout);
    expect(level, result.stdout + result.stderr).not.toBeNull();
    expect(Number(level?.[1])).toBeLessThanOrEqual(2);
  });
});

describe('deploy/systemd units', () => {
  const server = parseUnit(join(DIR, 'svc-server.service'));
  const runner = parseUnit(join(DIR, 'svc-runner.service'));

  it.each([
    ['svc-server.service', server, 'server', '/etc/svc/server.env'],
    ['svc-runner.service', runner, 'runner docker', '/etc/svc/runner.env'],
  ])('%s runs svc as its own user, restarts it on failure, and confines it', (_, unit, command, envPath) => {
    const bin = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: { svc: string } }).bin
      .svc;
    expect(one(unit, 'Service', 'ExecStart')).toBe(
      `${INSTALL}/node_modules/node/bin/node ${INSTALL}/${bin} ${command}`,
    );
    // The same layout in this checkout: the Node of the npm package `node`, and svc's built command.
    expect(existsSync(join(ROOT, 'node_modules/node/bin/node'))).toBe(true);
    expect(existsSync(join(ROOT, bin))).toBe(true);
    expect(one(unit, 'Service', 'User')).toBe('svc');
    expect(one(unit, 'Service', 'EnvironmentFile')).toBe(envPath);
    expect(one(unit, 'Service', 'Restart')).toBe('on-failure');
    expect(one(unit, 'Service', 'RestartPreventExitStatus')).toBe('2');
    expect(one(unit, 'Service', 'NoNewPrivileges')).toBe('yes');
    expect(one(unit, 'Service', 'ProtectSystem')).toBe('strict');
    // The one writable folder is the working directory, which StateDirectory= creates for svc.
    const workDir = one(unit, 'Service', 'WorkingDirectory');
    expect(one(unit, 'Service', 'ReadWritePaths')).toBe(workDir);
    expect(`/var/lib/${one(unit, 'Service', 'StateDirectory')}`).toBe(workDir);
    expect(unit.Service?.MemoryDenyWriteExecute).toBeUndefined();
    expect(one(unit, 'Install', 'WantedBy')).toBe('multi-user.target');
  });

  it('lets the server list network interfaces, which its HTTP server does once it listens', () => {
    // Found under systemd: without AF_NETLINK, os.networkInterfaces() fails and the server exits.
    expect(one(server, 'Service', 'RestrictAddressFamilies').split(' ')).toContain('AF_NETLINK');
  });

  it('lets the server bind ports 80 and 443 for SVC_TLS_AUTOCERT, and nothing else', () => {
    expect(one(server, 'Service', 'AmbientCapabilities')).toBe('CAP_NET_BIND_SERVICE');
    expect(one(server, 'Service', 'CapabilityBoundingSet')).toBe('CAP_NET_BIND_SERVICE');
    expect(one(runner, 'Service', 'CapabilityBoundingSet')).toBe('');
  });

  it('gives the runner the Docker socket and the time to finish its stages when stopped', () => {
    expect(one(runner, 'Service', 'SupplementaryGroups')).toBe('docker');
    expect(one(runner, 'Unit', 'After')).toContain('docker.service');
    expect(one(runner, 'Service', 'KillMode')).toBe('mixed');
    const timeout = seconds(one(runner, 'Service', 'TimeoutStopSec'));
    expect(timeout * 1000).toBeGreaterThanOrEqual(STOP_GRACE_MS + STOP_REPORT_MS);
  });

  it('ships example env files that svc loads without a problem or a warning', () => {
    const serverEnv = envFile(join(DIR, 'server.env.example'));
    expect(Object.keys(serverEnv)).toEqual(
      expect.arrayContaining(['SVC_RPC_SECRET', 'SVC_COOKIE_SECRET', 'SVC_DATABASE_SECRET']),
    );
    const rpcSecret = hexSecret();
    const { settings } = loadCleanly('server', {
      ...serverEnv,
      SVC_RPC_SECRET: rpcSecret,
      SVC_COOKIE_SECRET: hexSecret(),
      SVC_DATABASE_SECRET: hexSecret(),
      SVC_SCMC_CLIENT_ID: 'id',
      SVC_SCMC_CLIENT_SECRET: 'secret',
    });
    expect(gitProvider(settings)).toMatchObject({ provider: expect.anything() as unknown });
    const runnerEnv = { ...envFile(join(DIR, 'runner.env.example')), SVC_RPC_SECRET: rpcSecret };
    expect(loadCleanly('docker', runnerEnv).settings.SVC_RPC_HOST).toBe(settings.SVC_SERVER_HOST);
  });
});
