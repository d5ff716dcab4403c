/*
 * The soak's SSH runners (issue 31, "the runner kinds that run here"): `svc runner ssh` processes
 * running the same steps on a real sshd of their own, by a `type: ssh` pipeline whose key is a
 * repository secret.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call } from '../../test/api/client.js';
import { startSshd, type TestSshd } from '../../test/support/sshd.js';
import type { SvcSystem } from './svc-system.js';

export interface SshSoak {
  /** The pipeline of every build: the docker soak's commands on the host, no clone. */
  readonly pipeline: string;
  /** Settings of each `svc runner ssh`: its own known_hosts and home. */
  readonly runnerEnv: Record<string, string>;
  /** Stores the host's key as the repository's secret `ssh_key`. */
  ready(system: SvcSystem): Promise<void>;
  stop(): Promise<void>;
}

export async function sshSoak(commands: readonly string[]): Promise<SshSoak> {
  const sshd: TestSshd = await startSshd();
  const pipeline = [
    'kind: pipeline',
    'type: ssh',
    'name: default',
    'server:',
    `  host: 127.0.0.1:${sshd.port}`,
    `  user: ${sshd.passwordUser.user}`,
    '  ssh_key:',
    '    from_secret: ssh_key',
    'clone:',
    '  disable: true',
    'steps:',
    '- name: step',
    `  commands: [ ${commands.map((command) => JSON.stringify(command)).join(', ')} ]`,
    '',
  ].join('\n');
  return {
    pipeline,
    runnerEnv: {
      SVC_SSH_KNOWN_HOSTS: join(mkdtempSync(join(tmpdir(), 'svc-soak-known-')), 'known_hosts'),
      HOME: mkdtempSync(join(tmpdir(), 'svc-soak-home-')),
    },
    async ready(system) {
      const answer = await call({ url: system.url }, `/api/repos/${system.repo}/secrets`, {
        method: 'POST',
        token: system.token,
        body: { name: 'ssh_key', data: sshd.clientKey },
      });
      if (answer.status !== 200) throw new Error(`storing the ssh_key secret was answered ${answer.status}`);
    },
    stop: () => sshd.stop(),
  };
}
