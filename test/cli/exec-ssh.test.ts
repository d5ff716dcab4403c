/*
 * `svc exec` of a `type: ssh` pipeline against a real sshd on loopback: the working copy is copied
 * to the host as the workspace, the server block's key comes from `--secret`, the host key is
 * checked against SVC_SSH_KNOWN_HOSTS, and the step's output (a secret masked) reaches the terminal.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSshd, sshdForTests, type TestSshd } from '../support/sshd.js';
import { runSvc } from '../support/svc-process.js';

const { skip } = sshdForTests();
const SECRET = 'hunter2-very-secret';

describe.skipIf(skip)('svc exec: a type: ssh pipeline on its host', () => {
  let sshd: TestSshd;
  beforeAll(async () => {
    sshd = await startSshd();
  });
  afterAll(() => sshd?.stop());

  const pipeline = (port: number, user: string) => `
kind: pipeline
type: ssh
name: remote
server:
  host: 127.0.0.1:${port}
  user: ${user}
  ssh_key:
    from_secret: key
steps:
- name: show
  environment:
    TOKEN:
      from_secret: token
  commands:
  - cat notes.txt
  - echo "token $TOKEN"
  - test "$(pwd)" != "${'$'}{HOME}"
`;

  it('copies the working copy to the host and runs the steps there', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'svc-exec-ssh-'));
    writeFileSync(join(cwd, '.drone.yml'), pipeline(sshd.port, sshd.passwordUser.user));
    writeFileSync(join(cwd, 'notes.txt'), 'from the working copy\n');
    const known = join(mkdtempSync(join(tmpdir(), 'svc-exec-known-')), 'known_hosts');
    writeFileSync(known, `[127.0.0.1]:${sshd.port} ${sshd.hostKey()}\n`);
    const result = await runSvc(
      ['exec', '--secret', `key=${sshd.clientKey}`, '--secret', `token=${SECRET}`],
      {
        cwd,
        env: { SVC_SSH_KNOWN_HOSTS: known },
      },
    );
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(result.stdout).toContain('from the working copy');
    expect(result.stdout).toContain('token ********');
    expect(result.stdout).not.toContain(SECRET);
  });

  it('fails with the host and the cause when the key is refused', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'svc-exec-ssh-'));
    writeFileSync(join(cwd, '.drone.yml'), pipeline(sshd.port, 'nobody-here'));
    writeFileSync(join(cwd, 'notes.txt'), 'x\n');
    const known = join(mkdtempSync(join(tmpdir(), 'svc-exec-known-')), 'known_hosts');
    writeFileSync(known, `[127.0.0.1]:${sshd.port} ${sshd.hostKey()}\n`);
    const result = await runSvc(['exec', '--secret', `key=${sshd.clientKey}`], {
      cwd,
      env: { SVC_SSH_KNOWN_HOSTS: known },
    });
    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).toContain(
      `ssh nobody-here@127.0.0.1:${sshd.port}: authentication failed for user nobody-here (key)`,
    );
  });
});
