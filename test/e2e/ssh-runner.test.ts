/*
 * `svc runner ssh` end to end: `svc server` with the GitHub double, `svc runner ssh`, a real sshd on
 * loopback. A push of a `type: ssh` pipeline builds green: the host's git clones the repository (a
 * bare repository on this machine, by its file:// URL), the steps run on the host with a secret
 * masked in their log, and GitHub gets the statuses.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSshd, sshdForTests, type TestSshd } from '../support/sshd.js';
import { HostE2E } from './host-e2e.js';
import { startSvcRunner, type SvcProcess } from './system.js';

const { skip } = sshdForTests();
const TOKEN = 'tok-3f9a7c2e-very-secret';

describe.skipIf(skip)('svc runner ssh: a type: ssh pipeline built green on a real sshd', () => {
  let sshd: TestSshd;
  let e2e: HostE2E;
  let runner: SvcProcess | undefined;

  beforeAll(async () => {
    sshd = await startSshd();
    e2e = await HostE2E.start(sshd.passwordUser.user, { ssh_key: sshd.clientKey, token: TOKEN });
    // The host's key is trusted on first use: the runner's known_hosts does not list it.
    runner = startSvcRunner('ssh', e2e.port, `e2e-ssh-runner-${process.pid}`, {
      SVC_SSH_KNOWN_HOSTS: join(mkdtempSync(join(tmpdir(), 'svc-e2e-known-')), 'known_hosts'),
      HOME: mkdtempSync(join(tmpdir(), 'svc-e2e-home-')),
    });
  });

  afterAll(async () => {
    await runner?.stop();
    await e2e?.stop();
    await sshd?.stop();
  });

  it('clones with the host’s git, runs the steps on the host, masks the secret, and reports success', async () => {
    const pipeline = [
      'kind: pipeline',
      'type: ssh',
      'name: remote',
      'server:',
      `  host: 127.0.0.1:${sshd.port}`,
      `  user: ${sshd.passwordUser.user}`,
      '  ssh_key:',
      '    from_secret: ssh_key',
      'steps:',
      '- name: build',
      '  environment:',
      '    TOKEN:',
      '      from_secret: token',
      '  commands:',
      '  - cat README.md',
      '  - echo "the token is $TOKEN"',
      '  - id -un',
      '',
    ].join('\n');
    const sha = await e2e.push(
      { 'README.md': 'hello from the host\n', '.drone.yml': pipeline },
      'a pipeline for the host',
    );
    const build = await e2e.build(1);
    const clone = await e2e.log(build, 'clone');
    expect(build.status, clone.join('\n')).toBe('success');
    expect(clone[0]).toMatch(
      /^ssh: \[127\.0\.0\.1\]:\d+ is not in known_hosts; trusting its ssh-ed25519 key SHA256:/,
    );
    const lines = await e2e.log(build, 'build');
    expect(lines).toEqual(
      expect.arrayContaining(['hello from the host', 'the token is ********', sshd.passwordUser.user]),
    );
    expect(lines.join('\n')).not.toContain(TOKEN);
    await e2e.succeeded(sha);
  });
});
