import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSshd } from '../../test/support/sshd.js';
import type { Benchmark, BenchContext } from '../lib/benchmark.js';
import { interleave, timeCommand } from '../lib/process.js';
import { timeComparison, type BenchResult } from '../lib/result.js';

const RUNS = 12;
const STEPS = 5;

function pipeline(port: number, user: string): string {
  const steps = Array.from(
    { length: STEPS },
    (_, i) => `- name: step${i + 1}\n  commands: [ "true" ]\n`,
  ).join('');
  return `kind: pipeline\ntype: ssh\nname: default\nserver:\n  host: 127.0.0.1:${port}\n  user: ${user}\n  ssh_key: {from_secret: key}\nsteps:\n${steps}`;
}

/**
 * `svc exec` of a 5-step `type: ssh` pipeline on a real sshd (loopback, key login) vs the same
 * commands run by OpenSSH's `ssh` command line, one after the other: the whole command in both
 * (process start, connection and key exchange, the steps), interleaved, medians.
 */
async function measure(ctx: BenchContext): Promise<BenchResult> {
  const sshd = await startSshd();
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-ssh-'));
  try {
    const keyFile = join(dir, 'key');
    const known = join(dir, 'known_hosts');
    writeFileSync(keyFile, sshd.clientKey, { mode: 0o600 });
    writeFileSync(known, `[127.0.0.1]:${sshd.port} ${sshd.hostKey()}\n`);
    const cwd = mkdtempSync(join(dir, 'copy-'));
    writeFileSync(join(cwd, '.drone.yml'), pipeline(sshd.port, sshd.passwordUser.user));
    const svcExec = () =>
      timeCommand(ctx.node, [ctx.svcMain, 'exec', '--secret', `key=${sshd.clientKey}`], {
        cwd,
        env: { ...process.env, SVC_SSH_KNOWN_HOSTS: known },
      });
    const sshRuns = async () => {
      let total = 0;
      for (let i = 0; i < STEPS; i++) {
        total += await timeCommand('ssh', [
          '-i',
          keyFile,
          '-p',
          String(sshd.port),
          '-o',
          `UserKnownHostsFile=${known}`,
          '-o',
          'StrictHostKeyChecking=yes',
          '-o',
          'BatchMode=yes',
          `${sshd.passwordUser.user}@127.0.0.1`,
          'true',
        ]);
      }
      return total;
    };
    const { a: svc, b: baseline } = await interleave(RUNS, svcExec, sshRuns);
    return timeComparison(
      {
        name: 'ssh-overhead',
        metric: `${STEPS}-step ssh pipeline, wall time`,
        notes: `svc exec (Node start, lint, compile, one connection, workspace copy, ${STEPS} steps, cleanup) vs ${STEPS} × ssh user@host true, interleaved, medians`,
      },
      svc,
      baseline,
    );
  } finally {
    await sshd.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A 5-step `type: ssh` pipeline through svc vs the raw `ssh` command lines of the same commands. */
export const sshOverhead: Benchmark = {
  name: 'ssh-overhead',
  needs: ['sshd'],
  async run(ctx) {
    return [await measure(ctx)];
  },
};
