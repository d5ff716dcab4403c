/*
 * A real OpenSSH daemon for a test: its own folder, host key, port on 127.0.0.1 and a client key for
 * every account, started with the `sshd` that `.ci/services.sh start` names (SVC_TEST_SSHD), plus the
 * password account it creates (SVC_TEST_SSH_USER / SVC_TEST_SSH_PASSWORD). Stopped by the test.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../e2e/system.js';
import { service } from './services.js';

export interface TestSshd {
  readonly host: string;
  readonly port: number;
  /** A private key (OpenSSH format) the daemon authorizes for every account. */
  readonly clientKey: string;
  /** An account that logs in with a password. */
  readonly passwordUser: { user: string; password: string };
  /** The public host key line (`ssh-ed25519 AAAA…`). */
  hostKey(): string;
  /** Authorizes another public key (an OpenSSH `.pub` line) for every account. */
  authorize(publicKey: string): void;
  /** Restarts the daemon on the same port with a new host key (a changed host). */
  rekey(): Promise<void>;
  stop(): Promise<void>;
}

/** Whether the SSH tests can run here (outside CI they skip without sshd; in CI they must run). */
export function sshdForTests(): { skip: boolean } {
  const sshd = service('SVC_TEST_SSHD', 'OpenSSH server');
  const user = service('SVC_TEST_SSH_USER', 'OpenSSH password account');
  const password = service('SVC_TEST_SSH_PASSWORD', 'OpenSSH password account’s password');
  return { skip: sshd.skip || user.skip || password.skip };
}

export async function startSshd(): Promise<TestSshd> {
  const sshd = process.env.SVC_TEST_SSHD ?? '/usr/sbin/sshd';
  const dir = mkdtempSync(join(tmpdir(), 'svc-sshd-'));
  const port = await freePort();
  const keygen = (file: string) =>
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, file)], { stdio: 'ignore' });
  keygen('client_key');
  // sshd reads authorized keys as the account logging in: the folder and that file are readable.
  chmodSync(dir, 0o755);
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(join(dir, 'client_key.pub')), { mode: 0o644 });
  const config = join(dir, 'sshd_config');
  writeFileSync(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${join(dir, 'host_key')}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      'PasswordAuthentication yes',
      'KbdInteractiveAuthentication no',
      'PermitRootLogin prohibit-password',
      'UsePAM no',
      'StrictModes no',
      'MaxSessions 50',
      'MaxStartups 50',
      'Subsystem sftp internal-sftp',
      '',
    ].join('\n'),
  );
  execFileSync('mkdir', ['-p', '/run/sshd']);
  let child: ChildProcess | undefined;
  const start = async () => {
    rmSync(join(dir, 'host_key'), { force: true });
    rmSync(join(dir, 'host_key.pub'), { force: true });
    keygen('host_key');
    // -D: stays in the foreground as this test's child, so the test can stop exactly what it started.
    const started = spawn(sshd, ['-D', '-f', config, '-E', join(dir, 'sshd.log')], { stdio: 'ignore' });
    child = started;
    await listening(port, started, join(dir, 'sshd.log'));
  };
  const stopDaemon = async () => {
    const running = child;
    if (running === undefined || running.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill('SIGTERM');
    });
  };
  await start();
  return {
    host: '127.0.0.1',
    port,
    clientKey: readFileSync(join(dir, 'client_key'), 'utf8'),
    passwordUser: {
      user: process.env.SVC_TEST_SSH_USER ?? 'svc-ssh-test',
      password: process.env.SVC_TEST_SSH_PASSWORD ?? '',
    },
    authorize: (publicKey) => appendFileSync(join(dir, 'authorized_keys'), `${publicKey.trim()}\n`),
    hostKey: () => readFileSync(join(dir, 'host_key.pub'), 'utf8').trim().split(' ').slice(0, 2).join(' '),
    rekey: async () => {
      await stopDaemon();
      await start();
    },
    stop: async () => {
      await stopDaemon();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Waits (at most 5 s) until the daemon answers on the port with an SSH banner: another process that
 * took the port meanwhile (it was free when chosen) does not pass. A daemon that exits fails at once,
 * with its log.
 */
async function listening(port: number, daemon: ChildProcess, logFile: string): Promise<void> {
  const log = () => {
    try {
      return readFileSync(logFile, 'utf8').trim().split('\n').slice(-10).join('\n');
    } catch {
      return '(no log)';
    }
  };
  for (let attempt = 0; attempt < 100; attempt++) {
    if (daemon.exitCode !== null || daemon.signalCode !== null) {
      throw new Error(
        `sshd exited (${daemon.exitCode ?? daemon.signalCode}) before listening on 127.0.0.1:${port}:\n${log()}`,
      );
    }
    const banner = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      const done = (text: string) => {
        socket.destroy();
        resolve(text);
      };
      socket.setTimeout(1000, () => done(''));
      socket.once('data', (chunk) => done(chunk.toString('latin1')));
      socket.on('error', () => done(''));
    });
    if (banner.startsWith('SSH-2.0-OpenSSH')) return;
    if (banner !== '')
      throw new Error(`127.0.0.1:${port} answers, but not as sshd: ${JSON.stringify(banner.slice(0, 80))}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`sshd did not listen on 127.0.0.1:${port} within 5 s:\n${log()}`);
}
