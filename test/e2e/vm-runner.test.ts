/*
 * `svc runner vm` end to end: `svc server` with the GitHub double, `svc runner vm` against the Orka
 * double, whose VMs are real sshd processes. A push of a `type: macstadium` pipeline builds green in
 * a VM made for the stage (cloned with the VM's git, a secret masked), the VM is deleted afterwards,
 * and the VM of a runner SIGKILLed mid-stage is deleted when the runner starts again.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, enable, loginAs, tokenOf } from '../api/client.js';
import { startGitHubDouble, type GitHubDouble } from '../doubles/github/index.js';
import { startOrkaDouble, type OrkaDouble } from '../doubles/orka/index.js';
import { sshdForTests } from '../support/sshd.js';
import { localRepository } from './host-repository.js';
import { freePort, serverEnv, startServer, startSvcRunner, waitFor, type SvcProcess } from './system.js';

const { skip } = sshdForTests();
const REPO = 'octocat/app';
const TOKEN = 'tok-8d1e44b0-very-secret';
const RUNNER = `e2e-vm-runner-${process.pid}`;

interface ApiBuild {
  number: number;
  status: string;
  stages?: { number: number; status: string; steps?: { number: number; name: string; status: string }[] }[];
}

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
  let github: GitHubDouble;
  let server: SvcProcess | undefined;
  let runner: SvcProcess | undefined;
  let port = 0;
  let token = '';
  let hookUrl = '';
  let repo: ReturnType<typeof localRepository>;
  const url = () => `http://127.0.0.1:${port}`;
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
    repo = localRepository(orka.vmUser.username);
    github = await startGitHubDouble({ enterprise: true });
    github.addUser({ login: 'octocat', email: 'octocat@example.com' });
    github.addRepo({ owner: 'octocat', name: 'app', admins: ['octocat'], cloneUrl: repo.url });
    port = await freePort();
    server = await startServer(serverEnv(port, mkdtempSync(join(tmpdir(), 'svc-e2e-data-')), github));
    const session = await loginAs({ url: url() }, 'octocat');
    token = await tokenOf({ url: url() }, session);
    await enable({ url: url() }, session, REPO);
    hookUrl = github.hooks(REPO)[0]?.url ?? '';
    const created = await call({ url: url() }, `/api/repos/${REPO}/secrets`, {
      method: 'POST',
      token,
      body: { name: 'token', data: TOKEN },
    });
    expect(created.status, created.text).toBe(200);
    runner = startSvcRunner('vm', port, RUNNER, runnerEnv());
  });

  afterAll(async () => {
    await runner?.stop();
    await server?.stop();
    await github?.close();
    await orka?.close();
  });

  function push(command: string, message: string): string {
    const files = { 'README.md': 'hello from the VM\n', '.drone.yml': PIPELINE(command) };
    const sha = repo.commit(files, message);
    github.commit(REPO, 'main', files, message, 'octocat', sha);
    return sha;
  }

  const build = (number: number, done: (b: ApiBuild) => boolean) =>
    waitFor(`build ${number}`, async () => {
      const answer = await call({ url: url() }, `/api/repos/${REPO}/builds/${number}`, { token });
      const found = answer.status === 200 ? (answer.json as ApiBuild) : undefined;
      return found !== undefined && done(found) ? found : undefined;
    });

  async function log(found: ApiBuild, step: string): Promise<string[]> {
    const stage = found.stages?.[0];
    const row = stage?.steps?.find((s) => s.name === step);
    const answer = await call(
      { url: url() },
      `/api/repos/${REPO}/builds/${found.number}/logs/${stage?.number}/${row?.number}`,
      { token },
    );
    return (answer.json as { out: string }[]).map((line) => line.out);
  }

  it('builds a push green in a VM of its own, and deletes the VM', async () => {
    const sha = push('sw_vers 2>/dev/null || uname -s', 'a pipeline for the mac');
    expect(await github.push(REPO, 'main', hookUrl)).toBe(200);
    const done = await build(1, (b) => !['pending', 'running'].includes(b.status));
    const lines = await log(done, 'build');
    expect(done.status, lines.join('\n')).toBe('success');
    expect(lines).toEqual(expect.arrayContaining(['hello from the VM', 'the token is ********']));
    expect(lines.join('\n')).not.toContain(TOKEN);
    expect((await log(done, 'clone'))[0]).toMatch(/^ssh: .* trusting its ssh-ed25519 key SHA256:/);
    const deploy = orka.requests().find((r) => r.method === 'POST');
    expect(deploy?.body).toMatchObject({
      image: orka.images[0],
      cpu: 4,
      name: expect.stringMatching(/^svc-e2e-vm-runner-/) as unknown,
    });
    await waitFor('the VM deleted', () => Promise.resolve(orka.vms().length === 0 ? true : undefined));
    await waitFor('the success status', () =>
      Promise.resolve(github.statuses(REPO, sha).at(-1)?.state === 'success' ? true : undefined),
    );
  });

  it('deletes the VM of a runner SIGKILLed mid-stage when that runner starts again', async () => {
    push('sleep 20', 'a long build');
    expect(await github.push(REPO, 'main', hookUrl)).toBe(200);
    await build(2, (b) => b.stages?.[0]?.steps?.find((s) => s.name === 'build')?.status === 'running');
    expect(orka.vms()).toHaveLength(1);
    await runner?.kill();
    expect(orka.vms()).toHaveLength(1);
    runner = startSvcRunner('vm', port, RUNNER, runnerEnv());
    await waitFor('the leftover VM deleted', () =>
      Promise.resolve(orka.vms().length === 0 ? true : undefined),
    );
    expect(orka.unknownCalls()).toEqual([]);
  });
});
