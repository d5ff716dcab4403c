/*
 * Test support: a PostgreSQL 15 or MariaDB server of the test's own, in a temporary folder on a free
 * loopback port, that the test may stop and start again — the shared CI servers of
 * .ci/services.sh serve other suites at the same time and must never go down. Started the way
 * services.sh starts those (same binaries and options). PostgreSQL refuses to run as root: its
 * processes run as the `postgres` account.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  chownSync,
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import pg from 'pg';
import { freePort } from './pebble.js';

/** The newest PostgreSQL server Debian installed, as .ci/services.sh picks it (15 on bookworm). */
const PG_BIN = newestPostgresBin();

function newestPostgresBin(): string {
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root) ? readdirSync(root).filter((name) => /^\d+$/.test(name)) : [];
  const newest = majors.map(Number).sort((a, b) => b - a)[0];
  return join(root, String(newest ?? 15), 'bin');
}

/** A database server that the test owns. */
export interface PrivateDatabase {
  readonly name: 'PostgreSQL' | 'MariaDB';
  /** SVC_DATABASE_DRIVER and SVC_DATABASE_DATASOURCE of a server using its database `svc`. */
  readonly settings: { driver: 'sql_a' | 'sql_b'; datasource: string };
  readonly port: number;
  /** Stops the server (PostgreSQL: fast shutdown; MariaDB: normal shutdown) and waits for its exit. */
  stop(): Promise<void>;
  /** Starts it again on the same folder and port; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops it and removes its folder. */
  destroy(): Promise<void>;
}

/** Whether this machine has the binaries (the CI image has; a developer's machine may not). */
export const privateDatabasesAvailable = {
  PostgreSQL: existsSync(join(PG_BIN, 'postgres')),
  MariaDB: spawnSync('which', ['mariadbd']).status === 0,
};

/** Runs a set-up command to completion; its output is shown when it fails. */
function run(command: string, args: string[], options: { uid?: number; gid?: number } = {}): void {
  const result = spawnSync(command, args, { ...options, encoding: 'utf8', timeout: 120_000 });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed: ${result.stderr}${result.stdout}`);
  }
}

/** Waits for `child` to exit, killing it with SIGKILL when `signal` has not ended it within 30 s. */
function exited(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(signal);
  });
}

/**
 * Polls `probe` until it succeeds; fails after `timeoutMs` with the last error, or at once when the
 * server exited (by a code or a signal), with the end of its log.
 */
async function ready(
  what: string,
  server: { child: ChildProcess; log: string },
  probe: () => Promise<void>,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const logTail = () => {
    try {
      return readFileSync(server.log, 'utf8').trim().split('\n').slice(-15).join('\n');
    } catch {
      return '(no log)';
    }
  };
  for (;;) {
    const { exitCode, signalCode } = server.child;
    if (exitCode !== null || signalCode !== null) {
      throw new Error(
        `${what} exited (${exitCode ?? signalCode}) while starting; ${server.log} ends:\n${logTail()}`,
      );
    }
    try {
      await probe();
      return;
    } catch (error) {
      if (Date.now() > deadline) {
        throw new Error(
          `${what} did not start: ${(error as Error).message}; ${server.log} ends:\n${logTail()}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** A PostgreSQL 15 cluster in a temporary folder, database `svc`, user `postgres` trusted on loopback. */
export async function startPrivatePostgres(): Promise<PrivateDatabase> {
  const account = { uid: Number(idOf('-u')), gid: Number(idOf('-g')) };
  const dir = mkdtempSync(join(tmpdir(), 'svc-private-pg-'));
  chownSync(dir, account.uid, account.gid);
  const data = join(dir, 'data');
  run(
    join(PG_BIN, 'initdb'),
    ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync'],
    account,
  );
  const port = await freePort();
  let child: ChildProcess | undefined;
  const connect = async (database: string) => {
    const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database });
    await client.connect();
    return client;
  };
  const start = async () => {
    const options = ['-D', data, '-c', 'listen_addresses=127.0.0.1', '-p', String(port), '-k', dir];
    const log = join(dir, 'postgres.log');
    const stderr = openSync(log, 'a');
    try {
      child = spawn(join(PG_BIN, 'postgres'), [...options, '-c', 'fsync=off'], {
        ...account,
        stdio: ['ignore', 'ignore', stderr],
      });
    } finally {
      closeSync(stderr);
    }
    await ready('PostgreSQL', { child, log }, async () => (await connect('postgres')).end());
  };
  // SIGINT is PostgreSQL's fast shutdown (pg_ctl stop -m fast): sessions are ended, not waited for.
  const stop = async () => {
    if (child !== undefined) await exited(child, 'SIGINT');
  };
  await start();
  const admin = await connect('postgres');
  await admin.query('CREATE DATABASE svc');
  await admin.end();
  return {
    name: 'PostgreSQL',
    settings: {
      driver: 'sql_b',
      datasource: `postgres://postgres:postgres@127.0.0.1:${port}/svc?sslmode=disable`,
    },
    port,
    stop,
    start,
    destroy: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A MariaDB server in a temporary folder, database `svc`, user `svc` on loopback. */
export async function startPrivateMariadb(): Promise<PrivateDatabase> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-private-mariadb-'));
  const data = join(dir, 'data');
  const socket = join(dir, 'mysqld.sock');
  run('mariadb-install-db', [
    '--no-defaults',
    `--datadir=${data}`,
    '--user=root',
    '--auth-root-authentication-method=normal',
    '--skip-test-db',
  ]);
  const port = await freePort();
  let child: ChildProcess | undefined;
  const admin = () => createConnection({ socketPath: socket, user: 'root' });
  const start = async () => {
    child = spawn(
      'mariadbd',
      [
        '--no-defaults',
        `--datadir=${data}`,
        '--user=root',
        '--bind-address=127.0.0.1',
        `--port=${port}`,
        `--socket=${socket}`,
        `--pid-file=${join(dir, 'mysqld.pid')}`,
        '--skip-log-bin',
        `--log-error=${join(dir, 'err.log')}`,
        '--innodb-flush-log-at-trx-commit=0',
        '--innodb-buffer-pool-size=32M',
      ],
      { stdio: 'ignore' },
    );
    await ready('MariaDB', { child, log: join(dir, 'err.log') }, async () => (await admin()).end());
  };
  // SIGTERM is a normal shutdown, as `mariadb-admin shutdown` and service managers do.
  const stop = async () => {
    if (child !== undefined) await exited(child, 'SIGTERM');
  };
  await start();
  const connection = await admin();
  await connection.query("CREATE USER 'svc'@'127.0.0.1' IDENTIFIED BY 'svc'");
  await connection.query("GRANT ALL ON *.* TO 'svc'@'127.0.0.1'");
  await connection.query('CREATE DATABASE svc');
  await connection.end();
  return {
    name: 'MariaDB',
    settings: { driver: 'sql_a', datasource: `svc:svc@tcp(127.0.0.1:${port})/svc?parseTime=true` },
    port,
    stop,
    start,
    destroy: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The `postgres` account's user or group id. */
function idOf(flag: '-u' | '-g'): string {
  const result = spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`there is no postgres account: ${result.stderr}`);
  return result.stdout.trim();
}
