import { execFile } from 'node:child_process';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSshd, sshdForTests, type TestSshd } from '../../../test/support/sshd.js';
import type { ExecSpec, ExecStep } from '../../core/engine.js';
import { execSpec } from '../../runner/testing/spec.js';
import { CONTRACT_WORKSPACE, engineContract, posixShellStep, processRunning } from '../engine.case.js';
import { SshEngine } from './engine.js';
import { HostKeys } from './host-keys.js';
import type { SshTarget } from './target.js';

const run = promisify(execFile);
const { skip } = sshdForTests();

const hostStep = (name: string, commands: string[], fields: Partial<ExecStep> = {}) =>
  posixShellStep(name, commands, { image: '', ...fields });

function engineFor(target: () => SshTarget, hostKeys = new HostKeys({})): SshEngine {
  return new SshEngine({ target, hostKeys });
}

engineContract({
  name: 'SSH (a real sshd, key login)',
  skip,
  async start() {
    const sshd = await startSshd();
    const target = {
      host: sshd.host,
      port: sshd.port,
      user: sshd.passwordUser.user,
      privateKey: sshd.clientKey,
    };
    const knownHostsFile = join(mkdtempSync(join(tmpdir(), 'svc-ssh-contract-')), 'known_hosts');
    writeFileSync(knownHostsFile, `[127.0.0.1]:${sshd.port} ${sshd.hostKey()}\n`);
    return {
      engine: engineFor(() => target, new HostKeys({ knownHostsFile })),
      shellStep: hostStep,
      spec: (steps) => execSpec(steps, { workspace: CONTRACT_WORKSPACE }),
      running: processRunning,
      leftovers: (spec) => Promise.resolve(existsSync(`/tmp/svc-${spec.runId}`)),
      close: () => sshd.stop(),
    };
  },
});

describe.skipIf(skip)('SSH engine', () => {
  let sshd: TestSshd;
  beforeAll(async () => {
    sshd = await startSshd();
  });
  afterAll(() => sshd?.stop());

  // The test account with the client key (root's login shell may read slow start-up files).
  const keyTarget = (): SshTarget => ({
    host: sshd.host,
    port: sshd.port,
    user: sshd.passwordUser.user,
    privateKey: sshd.clientKey,
  });

  async function stage(
    engine: SshEngine,
    steps: ExecStep[],
    spec: ExecSpec = execSpec(steps, { workspace: CONTRACT_WORKSPACE }),
  ) {
    const lines: string[] = [];
    await engine.setup(spec);
    try {
      const exits = [];
      for (const step of steps)
        exits.push((await engine.run(spec, step, (line) => lines.push(line))).exitCode);
      return { exits, lines };
    } finally {
      await engine.destroy(spec);
    }
  }

  it('logs in with a password, and runs as that user in a folder only they can read', async () => {
    const engine = engineFor(() => ({ host: sshd.host, port: sshd.port, ...sshd.passwordUser }));
    const { exits, lines } = await stage(engine, [
      hostStep('who', ['id -un', 'stat -c %a "$(dirname "$DRONE_WORKSPACE")"/..']),
    ]);
    expect(exits).toEqual([0]);
    expect(lines).toContain(sshd.passwordUser.user);
    expect(lines).toContain('700');
  });

  it('says so when tar cannot start on this machine to copy the working copy (svc exec), and goes on', async () => {
    const engine = engineFor(keyTarget);
    const local = mkdtempSync(join(tmpdir(), 'svc-ssh-upload-'));
    writeFileSync(join(local, 'README.md'), 'hello\n');
    const spec = execSpec([], { workspace: { ...CONTRACT_WORKSPACE, hostPath: local } });
    const path = process.env.PATH;
    // No tar on this PATH: spawning it fails with ENOENT, an 'error' event of the child process.
    process.env.PATH = mkdtempSync(join(tmpdir(), 'svc-no-tar-'));
    try {
      await expect(engine.setup(spec)).rejects.toThrow(`cannot pack ${local}: spawn tar ENOENT`);
    } finally {
      process.env.PATH = path;
      await engine.destroy(spec);
    }
  });

  it('names the host and the cause when it cannot log in or connect', async () => {
    const wrong = engineFor(() => ({
      host: sshd.host,
      port: sshd.port,
      user: sshd.passwordUser.user,
      password: 'wrong',
    }));
    const spec = execSpec([]);
    await expect(wrong.setup(spec)).rejects.toThrow(
      `ssh ${sshd.passwordUser.user}@127.0.0.1:${sshd.port}: authentication failed for user ${sshd.passwordUser.user} (password)`,
    );
    const closed = engineFor(() => ({ ...keyTarget(), port: 1 }));
    await expect(closed.setup(execSpec([]))).rejects.toThrow(
      `ssh ${sshd.passwordUser.user}@127.0.0.1:1: connection refused`,
    );
  });

  it('trusts a new host on first use, says so in the first step’s log, and refuses it once its key changed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-ssh-trust-'));
    const trustFile = join(dir, 'known_hosts');
    const engine = engineFor(keyTarget, new HostKeys({ trustFile }));
    const first = await stage(engine, [hostStep('a', ['true'])]);
    expect(first.lines[0]).toMatch(
      new RegExp(
        `^ssh: \\[127\\.0\\.0\\.1\\]:${sshd.port} is not in known_hosts; trusting its ssh-ed25519 key SHA256:`,
      ),
    );
    const again = await stage(engineFor(keyTarget, new HostKeys({ trustFile })), [hostStep('b', ['true'])]);
    expect(again.lines.some((line) => line.startsWith('ssh:'))).toBe(false);
    await sshd.rekey();
    await expect(engineFor(keyTarget, new HostKeys({ trustFile })).setup(execSpec([]))).rejects.toThrow(
      new RegExp(
        `the host key of \\[127\\.0\\.0\\.1\\]:${sshd.port} changed: expected SHA256:\\S+ \\(${trustFile}\\), got SHA256:`,
      ),
    );
  });

  it('accepts a host listed in known_hosts, and refuses one listed with another key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-ssh-known-'));
    const knownHostsFile = join(dir, 'known_hosts');
    writeFileSync(knownHostsFile, `# a comment\n[127.0.0.1]:${sshd.port} ${sshd.hostKey()}\n`);
    const listed = await stage(engineFor(keyTarget, new HostKeys({ knownHostsFile })), [
      hostStep('a', ['true']),
    ]);
    expect(listed.lines).toEqual(['+ true']);
    writeFileSync(
      knownHostsFile,
      `[127.0.0.1]:${sshd.port} ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl\n`,
    );
    await expect(engineFor(keyTarget, new HostKeys({ knownHostsFile })).setup(execSpec([]))).rejects.toThrow(
      /changed/,
    );
  });

  it('fails a step whose connection drops, naming the host, instead of hanging', async () => {
    // A TCP proxy between the engine and sshd, whose connections the test cuts.
    const sockets: Socket[] = [];
    const proxy = createServer((client) => {
      const upstream = connect(sshd.port, '127.0.0.1');
      sockets.push(client, upstream);
      client.pipe(upstream).pipe(client);
      client.on('error', () => undefined);
      upstream.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const { port } = proxy.address() as AddressInfo;
    try {
      const engine = engineFor(() => ({ ...keyTarget(), port }));
      const steps = [hostStep('long', ['echo started', 'sleep 30'])];
      const spec = execSpec(steps, { workspace: CONTRACT_WORKSPACE });
      await engine.setup(spec);
      const lines: string[] = [];
      const running = engine.run(spec, steps[0] as ExecStep, (line) => lines.push(line));
      for (let i = 0; i < 100 && !lines.includes('started'); i++) await new Promise((r) => setTimeout(r, 50));
      for (const socket of sockets) socket.destroy();
      await expect(running).rejects.toThrow(
        /^step long: the connection to svc-ssh-test@127\.0\.0\.1:\d+ was lost/,
      );
      await engine.destroy(spec);
    } finally {
      proxy.close();
    }
  });

  it('logs in with a key protected by a passphrase, and says so when the passphrase is wrong', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-ssh-passphrase-'));
    const keyFile = join(dir, 'key');
    await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', 'open sesame', '-f', keyFile]);
    sshd.authorize(readFileSync(`${keyFile}.pub`, 'utf8'));
    const target = { ...keyTarget(), privateKey: readFileSync(keyFile, 'utf8'), passphrase: 'open sesame' };
    const { exits } = await stage(
      engineFor(() => target),
      [hostStep('a', ['true'])],
    );
    expect(exits).toEqual([0]);
    await expect(engineFor(() => ({ ...target, passphrase: 'wrong' })).setup(execSpec([]))).rejects.toThrow(
      /: the private key cannot be used: /,
    );
  });
});
