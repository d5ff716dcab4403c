/**
 * Issue 33: the first build with no outside account. A real `svc server` with the built-in git
 * provider and its in-process Docker runner: the one-time setup link makes the administrator, the
 * API makes a repository, the real `git` client pushes to it over HTTP with the account's API
 * token, the push's own webhook builds it, the step clones it back through the Docker bridge — and
 * goes green; a failing change goes red. Credentials that are wrong or missing are refused.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerForTests } from '../../src/engines/docker/testing.case.js';
import { call, cookieHeader, type BrowserSession } from '../api/client.js';
import { freePort, providerServerEnv, startServer, waitFor, type SvcProcess } from './system.js';
import { gitAs } from '../support/git-client.js';

const docker = await dockerForTests(['local/busybox', 'svc/git']);
const PASSWORD = 'first-account-password';

const PIPELINE = (command: string) => `kind: pipeline
type: docker
name: default
steps:
- name: greet
  image: local/busybox
  pull: if-not-exists
  commands:
  - cat README.md
  - ${command}
`;

const git = gitAs({ name: 'Ada', email: 'ada@example.com' });

describe.skipIf(docker.skip)('the built-in git provider: from nothing to a green build', () => {
  let server: SvcProcess | undefined;
  let port = 0;
  let dataDir = '';
  let session: BrowserSession;
  let token = '';
  const url = (path = '') => `http://127.0.0.1:${port}${path}`;
  const work = mkdtempSync(join(tmpdir(), 'svc-local-git-work-'));

  beforeAll(async () => {
    port = await freePort();
    dataDir = mkdtempSync(join(tmpdir(), 'svc-local-git-data-'));
    server = await startServer({
      ...providerServerEnv(port, dataDir, {}),
      // Every interface: the steps' containers reach the server through the Docker bridge.
      SVC_SERVER_PORT: `:${port}`,
      SVC_SCML_ENABLED: 'true',
      SVC_RUNNER_LOCAL: 'true',
      DOCKER_HOST: process.env.DOCKER_HOST ?? '',
    });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('prints a one-time setup link that makes the administrator and logs them in', async () => {
    const link = await waitFor('the setup link in the log', () =>
      Promise.resolve(/Open (http:\/\/\S+\/setup\?token=[\w-]+)/.exec(server?.log() ?? '')?.[1]),
    );
    const setupToken = new URL(link).searchParams.get('token') ?? '';
    expect((await fetch(url(`/setup?token=${setupToken}`))).status).toBe(200);
    expect((await fetch(url('/setup?token=guessed'))).status).toBe(404);
    const post = (fields: Record<string, string>) =>
      fetch(url('/setup'), {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields).toString(),
      });
    // A password too short is refused, naming the rule, and the link still works.
    const short = await post({ token: setupToken, login: 'ada', password: 'short' });
    expect(short.status).toBe(400);
    expect(await short.text()).toContain('at least 8 characters');
    const made = await fetch(url('/setup'), {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: setupToken, login: 'ada', password: PASSWORD }).toString(),
    });
    expect(made.status).toBe(302);
    const setCookies = made.headers.getSetCookie();
    const cookie = cookieHeader(setCookies.filter((value) => !value.startsWith('svc_login_state=')));
    const me = await call({ url: url() }, '/api/user', { session: { cookie, csrf: '', setCookies } });
    expect(me.json).toMatchObject({ login: 'ada', admin: true });
    session = { cookie, csrf: (me.json as { csrf: string }).csrf, setCookies };
    // The link worked once.
    expect((await fetch(url(`/setup?token=${setupToken}`))).status).toBe(404);
    const answer = await call({ url: url() }, '/api/user/token?rotate=true', {
      method: 'POST',
      session,
      csrf: session.csrf,
    });
    token = (answer.json as { token: string }).token;
    expect(token).not.toBe('');
    // The forge's records keep the password's scrypt hash, never the password.
    const forge = readFileSync(join(dataDir, 'git', 'forge.json'), 'utf8');
    expect(forge).not.toContain(PASSWORD);
    expect(forge).toMatch(/"passwordHash": "scrypt\$/);
  }, 30_000);

  it('builds a push to a new repository green, cloning it through the Docker bridge', async () => {
    const created = await call({ url: url() }, '/api/local/repos', {
      method: 'POST',
      token,
      body: { name: 'hello' },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.json).toMatchObject({ namespace: 'ada', name: 'hello', private: true });
    const enabled = await call({ url: url() }, '/api/repos/ada/hello', { method: 'POST', token });
    expect(enabled.status, enabled.text).toBe(200);

    git(work, 'init', '-q', '-b', 'main');
    writeFileSync(join(work, 'README.md'), 'hello from the built-in provider\n');
    writeFileSync(join(work, '.drone.yml'), PIPELINE('echo all green'));
    git(work, 'add', '.');
    git(work, 'commit', '-q', '-m', 'first build');
    // Without credentials, and with a wrong token, git is refused; the account's API token works.
    const remote = (credentials: string) => `http://${credentials}127.0.0.1:${port}/git/ada/hello.git`;
    expect(() => git(work, 'push', '-q', remote(''), 'main')).toThrow(
      /401|Authentication failed|could not read Username/,
    );
    expect(() => git(work, 'push', '-q', remote('ada:wrong-token@'), 'main')).toThrow(
      /401|Authentication failed/,
    );
    git(work, 'push', '-q', remote(`ada:${token}@`), 'main');

    const build = await waitFor(
      'build #1 to end',
      async () => {
        const answer = await call({ url: url() }, '/api/repos/ada/hello/builds/1', { token });
        const status = (answer.json as { status?: string } | undefined)?.status;
        return status === 'success' || status === 'failure' || status === 'error' ? answer.json : undefined;
      },
      120_000,
    );
    const logOf = async (step: number): Promise<string> => {
      const log = await call({ url: url() }, `/api/repos/ada/hello/builds/1/logs/1/${step}`, { token });
      return Array.isArray(log.json)
        ? (log.json as { out: string }[]).map((line) => line.out).join('')
        : `(${log.status} ${log.text})`;
    };
    expect(build, `clone: ${await logOf(1)}\nstep: ${await logOf(2)}`).toMatchObject({
      status: 'success',
      event: 'push',
      ref: 'refs/heads/main',
    });
    const lines = await logOf(2);
    expect(lines).toContain('hello from the built-in provider');
    expect(lines).toContain('all green');
    // svc posted the build's status to the provider, which keeps it.
    const head = git(work, 'rev-parse', 'HEAD');
    const forge = JSON.parse(readFileSync(join(dataDir, 'git', 'forge.json'), 'utf8')) as {
      statuses: Record<string, { sha: string; state: string }[]>;
    };
    const states = Object.values(forge.statuses)
      .flat()
      .filter((s) => s.sha === head)
      .map((s) => s.state);
    expect(states.at(-1)).toBe('success');
  }, 180_000);

  it('builds a failing change red', async () => {
    writeFileSync(join(work, '.drone.yml'), PIPELINE('exit 3'));
    git(work, 'commit', '-q', '-am', 'break it');
    git(work, 'push', '-q', `http://ada:${token}@127.0.0.1:${port}/git/ada/hello.git`, 'main');
    const build = await waitFor(
      'build #2 to end',
      async () => {
        const answer = await call({ url: url() }, '/api/repos/ada/hello/builds/2', { token });
        const status = (answer.json as { status?: string } | undefined)?.status;
        return status === 'success' || status === 'failure' || status === 'error' ? answer.json : undefined;
      },
      120_000,
    );
    expect(build).toMatchObject({ status: 'failure', message: 'break it' });
    // Red for the step's reason: the clone worked, the step exited 3.
    const steps = (
      build as { stages: { steps: { name: string; status: string; exit_code: number }[] }[] }
    ).stages[0]?.steps.map((step) => [step.name, step.status, step.exit_code]);
    expect(steps).toEqual([
      ['clone', 'success', 0],
      ['greet', 'failure', 3],
    ]);
    // The provider shows the commit's status as svc reported it, next to the branch.
    const refs = await waitFor('the red status at the provider', async () => {
      const answer = await call({ url: url() }, '/api/local/repos/ada/hello/refs', { token });
      const main = (answer.json as { name: string; statuses: { state: string }[] }[]).find(
        (ref) => ref.name === 'main',
      );
      return main?.statuses[0]?.state === 'failure' ? answer.json : undefined;
    });
    expect(refs).toEqual([
      {
        ref: 'refs/heads/main',
        name: 'main',
        kind: 'branch',
        sha: git(work, 'rev-parse', 'HEAD'),
        subject: 'break it',
        statuses: [
          {
            context: expect.stringContaining('svc') as unknown,
            state: 'failure',
            description: expect.any(String) as unknown,
            target_url: expect.stringMatching(/\/ada\/hello\/2$/) as unknown,
            updated: expect.any(Number) as unknown,
          },
        ],
      },
    ]);
    // Someone who may not read the repository learns nothing of it.
    const outsider = await call({ url: url() }, '/api/local/repos/ada/nothing-here/refs', { token });
    expect(outsider.status).toBe(404);
  }, 180_000);

  it('commits a sample pipeline for someone without a repository at hand, which builds green', async () => {
    const api = (path: string, body?: unknown) => call({ url: url() }, path, { method: 'POST', token, body });
    expect((await api('/api/local/repos', { name: 'sample' })).status).toBe(201);
    expect((await api('/api/repos/ada/sample')).status).toBe(200);
    // An image reference that is not one is refused, naming the field.
    const bad = await api('/api/local/repos/ada/sample/sample', { image: 'no such image!' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('image:');
    const made = await api('/api/local/repos/ada/sample/sample', { image: 'local/busybox' });
    expect(made.status, made.text).toBe(201);
    const build = await waitFor(
      'the sample build to end',
      async () => {
        const answer = await call({ url: url() }, '/api/repos/ada/sample/builds/1', { token });
        const status = (answer.json as { status?: string } | undefined)?.status;
        return status === 'success' || status === 'failure' || status === 'error' ? answer.json : undefined;
      },
      120_000,
    );
    expect(build).toMatchObject({
      status: 'success',
      message: 'Add a sample pipeline',
      after: (made.json as { sha: string }).sha,
    });
  }, 180_000);

  it('builds no commit that asks for none ([skip ci])', async () => {
    writeFileSync(join(work, 'NOTES.md'), 'notes\n');
    git(work, 'add', 'NOTES.md');
    git(work, 'commit', '-q', '-m', 'notes only [skip ci]');
    git(work, 'push', '-q', `http://ada:${token}@127.0.0.1:${port}/git/ada/hello.git`, 'main');
    // The push's webhook arrived and was answered "no build", for the commit's own words.
    await waitFor('the push’s hook to be answered', () =>
      Promise.resolve(/"reason":"[^"]*skip[^"]*"[^}]*"msg":"hook: no build"/i.exec(server?.log() ?? '')?.[0]),
    );
    const builds = await call({ url: url() }, '/api/repos/ada/hello/builds', { token });
    expect((builds.json as { number: number }[]).map((b) => b.number)).toEqual([2, 1]);
  }, 60_000);

  it('changes the password given the current one, and git takes the new one', async () => {
    const change = (current: string, password: string) =>
      call({ url: url() }, '/api/local/password', { method: 'POST', token, body: { current, password } });
    const wrong = await change('not-the-password', 'a-new-password-1');
    expect(wrong.status).toBe(403);
    expect(wrong.text).toContain('current: not your current password');
    expect((await change(PASSWORD, 'short')).status).toBe(400);
    expect((await change(PASSWORD, 'a-new-password-1')).status).toBe(204);
    const elsewhere = mkdtempSync(join(tmpdir(), 'svc-local-git-password-'));
    const at = (password: string) => `http://ada:${password}@127.0.0.1:${port}/git/ada/hello.git`;
    expect(() => git(elsewhere, 'clone', '-q', at(PASSWORD), 'old')).toThrow();
    git(elsewhere, 'clone', '-q', at('a-new-password-1'), 'new');
    expect(readFileSync(join(elsewhere, 'new', 'README.md'), 'utf8')).toBe(
      'hello from the built-in provider\n',
    );
  }, 60_000);

  it('keeps a private repository from anonymous clones and from other accounts’ tokens', () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'svc-local-git-clone-'));
    expect(() =>
      git(elsewhere, 'clone', '-q', `http://127.0.0.1:${port}/git/ada/hello.git`, 'copy'),
    ).toThrow();
    git(elsewhere, 'clone', '-q', `http://ada:${token}@127.0.0.1:${port}/git/ada/hello.git`, 'copy');
    expect(readFileSync(join(elsewhere, 'copy', 'README.md'), 'utf8')).toBe(
      'hello from the built-in provider\n',
    );
  }, 60_000);
});
