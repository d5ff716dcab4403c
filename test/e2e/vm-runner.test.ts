/*
 * `svc runner vm` end to end: `svc server` with the GitHub double, `svc runner vm` against the Orka
 * double, whose VMs are real sshd processes. A push of a `type: macstadium` pipeline builds green in
 * a VM made for the stage (cloned with the VM's git, a secret masked), the VM is deleted afterwards,
 * and the VM of a runner SIGKILLed mid-stage is deleted when the runner starts again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOrkaDouble, type OrkaDouble } from '../doubles/orka/index.js';
import { sshdForTests } from '../support/sshd.js';
import { HostE2E } from './host-e2e.js';
import { startSvcRunner, waitFor, type SvcProcess } from './system.js';

const { skip } = sshdForTests();
const TOKEN = 'tok-8d1e44b0-very-secret';
const RUNNER = `e2e-vm-runner-${process.pid}`;

const PIPELINE = (command: string) =>
  [
    'kind: pipeline',
    'type: macstadium',
    'name: mac',
    'steps:',
    '- name: build',
    '  environment:',
    '    TOKEN:',
    '      from_secret: token',
    '  commands:',
    '  - cat README.md',
    '  - echo "the token is $TOKEN"',
    `  - ${command}`,
    '',
  ].join('\n');

describe.skipIf(skip)('svc runner vm: type: macstadium pipelines in Orka VMs', () => {
  let orka: OrkaDouble;
  let e2e: HostE2E;
  let runner: SvcProcess | undefined;
  const runnerEnv = () => ({
    SVC_VMHOST_ENDPOINT: orka.url,
    SVC_VMHOST_TOKEN: orka.token,
    SVC_VM_IMAGE: orka.images[0] ?? '',
    SVC_VM_CPU: '4',
    SVC_VM_USERNAME: orka.vmUser.username,
    SVC_VM_PASSWORD: orka.vmUser.password,
  });

  beforeAll(async () => {
    orka = await startOrkaDouble();
    e2e = await HostE2E.start(orka.vmUser.username, { token: TOKEN });
    runner = startSvcRunner('vm', e2e.port, RUNNER, runnerEnv());
  });

  afterAll(async () => {
    await runner?.stop();
    await e2e?.stop();
    await orka?.close();
  });

  const files = (command: string) => ({
    'README.md': 'hello from the VM\n',
    '.drone.yml': PIPELINE(command),
  });

  it('builds a push green in a VM of its own, and deletes the VM', async () => {
    const sha = await e2e.push(files('sw_vers 2>/dev/null || uname -s'), 'a pipeline for the mac');
    const done = await e2e.build(1);
    const lines = await e2e.log(done, 'build');
    expect(done.status, lines.join('\n')).toBe('success');
    expect(lines).toEqual(expect.arrayContaining(['hello from the VM', 'the token is ********']));
    expect(lines.join('\n')).not.toContain(TOKEN);
    expect((await e2e.log(done, 'clone'))[0]).toMatch(/^ssh: .* trusting its ssh-ed25519 key SHA256:/);
    const deploy = orka.requests().find((r) => r.method === 'POST');
    expect(deploy?.body).toMatchObject({
      image: orka.images[0],
      cpu: 4,
      name: expect.stringMatching(/^svc-e2e-vm-runner-/) as unknown,
    });
    await waitFor('the VM deleted', () => Promise.resolve(orka.vms().length === 0 ? true : undefined));
    await e2e.succeeded(sha);
  });

  it('streams a running step’s log live, and deletes the VM of a runner SIGKILLed mid-stage when it starts again', async () => {
    await e2e.push(files('sleep 20'), 'a long build');
    const running = await e2e.build(
      2,
      (b) => b.stages?.[0]?.steps?.find((s) => s.name === 'build')?.status === 'running',
    );
    // Live: the lines printed so far arrive while the step still runs, the secret masked.
    const live = await e2e.follow(running, 'build', 'the token is ********');
    expect(live).toEqual(expect.arrayContaining(['hello from the VM', 'the token is ********']));
    expect(orka.vms()).toHaveLength(1);
    await runner?.kill();
    expect(orka.vms()).toHaveLength(1);
    runner = startSvcRunner('vm', e2e.port, RUNNER, runnerEnv());
    await waitFor('the leftover VM deleted', () =>
      Promise.resolve(orka.vms().length === 0 ? true : undefined),
    );
    expect(orka.unknownCalls()).toEqual([]);
  });
});
