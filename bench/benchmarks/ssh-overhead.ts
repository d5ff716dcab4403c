import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSshd } from '../../test/support/sshd.js';
import type { Benchmark, BenchContext } from '../lib/benchmark.js';
import { interleave, timeCommand } from '../lib/process.js';
import type { BenchResult } from '../lib/result.js';
import { median, percentile, round } from '../lib/stats.js';

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
    const svcMedian = median(svc);
    const baselineMedian = median(baseline);
    return {
      name: 'ssh-overhead',
      metric: `${STEPS}-step ssh pipeline, wall time`,
      svc: round(svcMedian, 1),
      baseline: round(baselineMedian, 1),
      ratio: round(svcMedian / baselineMedian),
      unit: 'ms',
      runs: RUNS,
      p50: round(svcMedian, 1),
      p99: round(percentile(svc, 0.99), 1),
      notes: `svc exec (Node start, lint, compile, one connection, workspace copy, ${STEPS} steps, cleanup) vs ${STEPS} × ssh user@host true, interleaved, medians`,
    };
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
