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
import { call, enable, loginAs, tokenOf } from '../api/client.js';
import { startGitHubDouble, type GitHubDouble } from '../doubles/github/index.js';
import { startSshd, sshdForTests, type TestSshd } from '../support/sshd.js';
import { localRepository } from './host-repository.js';
import { freePort, serverEnv, startServer, startSvcRunner, waitFor, type SvcProcess } from './system.js';

const { skip } = sshdForTests();
const REPO = 'octocat/app';
const TOKEN = 'tok-3f9a7c2e-very-secret';

interface ApiBuild {
  number: number;
  status: string;
  after: string;
  stages?: { number: number; name: string; status: string; steps?: { number: number; name: string }[] }[];
}

describe.skipIf(skip)('svc runner ssh: a type: ssh pipeline built green on a real sshd', () => {
  let sshd: TestSshd;
  let github: GitHubDouble;
  let server: SvcProcess | undefined;
  let runner: SvcProcess | undefined;
  let port = 0;
  let token = '';
  let hookUrl = '';
  const url = () => `http://127.0.0.1:${port}`;
  let repo: ReturnType<typeof localRepository>;

  beforeAll(async () => {
    sshd = await startSshd();
    repo = localRepository(sshd.passwordUser.user);
    github = await startGitHubDouble({ enterprise: true });
    github.addUser({ login: 'octocat', email: 'octocat@example.com' });
    github.addRepo({ owner: 'octocat', name: 'app', admins: ['octocat'], cloneUrl: repo.url });
    port = await freePort();
    server = await startServer(serverEnv(port, mkdtempSync(join(tmpdir(), 'svc-e2e-data-')), github));
    const session = await loginAs({ url: url() }, 'octocat');
    token = await tokenOf({ url: url() }, session);
    await enable({ url: url() }, session, REPO);
    hookUrl = github.hooks(REPO)[0]?.url ?? '';
    for (const [name, data] of [
      ['ssh_key', sshd.clientKey],
      ['token', TOKEN],
    ] as const) {
      const created = await call({ url: url() }, `/api/repos/${REPO}/secrets`, {
        method: 'POST',
        token,
        body: { name, data },
      });
      expect(created.status, created.text).toBe(200);
    }
    // The host's key is trusted on first use: the runner's known_hosts does not list it.
    runner = startSvcRunner('ssh', port, `e2e-ssh-runner-${process.pid}`, {
      SVC_SSH_KNOWN_HOSTS: join(mkdtempSync(join(tmpdir(), 'svc-e2e-known-')), 'known_hosts'),
      HOME: mkdtempSync(join(tmpdir(), 'svc-e2e-home-')),
    });
  });

  afterAll(async () => {
    await runner?.stop();
    await server?.stop();
    await github?.close();
    await sshd?.stop();
  });

  async function log(build: ApiBuild, step: string): Promise<string[]> {
    const stage = build.stages?.[0];
    const found = stage?.steps?.find((s) => s.name === step);
    const answer = await call(
      { url: url() },
      `/api/repos/${REPO}/builds/${build.number}/logs/${stage?.number}/${found?.number}`,
      {
        token,
      },
    );
    expect(answer.status, answer.text).toBe(200);
    return (answer.json as { out: string }[]).map((line) => line.out);
  }

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
    const files = { 'README.md': 'hello from the host\n', '.drone.yml': pipeline };
    const sha = repo.commit(files, 'a pipeline for the host');
    github.commit(REPO, 'main', files, 'a pipeline for the host', 'octocat', sha);
    expect(await github.push(REPO, 'main', hookUrl)).toBe(200);
    const build = await waitFor('build 1', async () => {
      const answer = await call({ url: url() }, `/api/repos/${REPO}/builds/1`, { token });
      const found = answer.status === 200 ? (answer.json as ApiBuild) : undefined;
      return found !== undefined && !['pending', 'running'].includes(found.status) ? found : undefined;
    });
    const clone = await log(build, 'clone');
    expect(build.status, clone.join('\n')).toBe('success');
    expect(clone[0]).toMatch(
      /^ssh: \[127\.0\.0\.1\]:\d+ is not in known_hosts; trusting its ssh-ed25519 key SHA256:/,
    );
    const lines = await log(build, 'build');
    expect(lines).toEqual(
      expect.arrayContaining(['hello from the host', 'the token is ********', sshd.passwordUser.user]),
    );
    expect(lines.join('\n')).not.toContain(TOKEN);
    await waitFor('the success status', () =>
      Promise.resolve(github.statuses(REPO, sha).at(-1)?.state === 'success' ? true : undefined),
    );
  });
});
