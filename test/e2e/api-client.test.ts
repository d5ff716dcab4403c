/*
 * The API and the `svc` client end to end: `svc server` and `svc runner docker` as real processes,
 * the GitHub double, the real Docker engine, and the `svc` client as users run it.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countMatching, dockerForTests } from '../../src/engines/docker/testing.case.js';
import { call, enable, loginAs, tokenOf } from '../api/client.js';
import { startGitHubDouble, type GitHubDouble } from '../doubles/github/index.js';
import { runSvc, type SvcRun } from '../support/svc-process.js';
import { freePort, serverEnv, startRunner, startServer, waitFor, type SvcProcess } from './system.js';

const docker = await dockerForTests(['local/busybox']);
const REPO = 'octocat/app';
const RUNNER = `e2e-client-${process.pid}`;
const PASSWORD = 'correct-horse-battery-staple';

/** One pipeline, no clone (the double serves no git), its steps on the local busybox image. */
function pipeline(name: string, steps: string, extra = ''): string {
  return `kind: pipeline
type: docker
name: ${name}
clone:
  disable: true
${extra}steps:
${steps}`;
}

const step = (name: string, commands: string[], extra = ''): string =>
  `- name: ${name}
  image: local/busybox
  pull: if-not-exists
${extra}  commands:
${commands.map((command) => `  - ${JSON.stringify(command)}`).join('\n')}
`;

interface ApiBuild {
  number: number;
  status: string;
  event: string;
  stages: {
    number: number;
    name: string;
    status: string;
    started: number;
    steps?: { number: number; name: string; status: string }[];
  }[];
}

describe.skipIf(docker.skip)('the API and the svc client: server, Docker runner, GitHub double', () => {
  let github: GitHubDouble;
  let port = 0;
  let server: SvcProcess | undefined;
  let runner: SvcProcess | undefined;
  let token = '';
  let hookUrl = '';
  const url = () => `http://127.0.0.1:${port}`;
  const cwd = mkdtempSync(join(tmpdir(), 'svc-e2e-client-'));

  /** Runs the `svc` client against the server as octocat. */
  async function svc(...args: string[]): Promise<SvcRun> {
    const run = await runSvc(args, { cwd, env: { SVC_SERVER: url(), SVC_TOKEN: token } });
    expect(run.code, `svc ${args.join(' ')}\n${run.stdout}\n${run.stderr}`).toBe(0);
    return run;
  }

  async function build(number: number): Promise<ApiBuild> {
    const answer = await call({ url: url() }, `/api/repos/${REPO}/builds/${number}`, { token });
    expect(answer.status, answer.text).toBe(200);
    return answer.json as ApiBuild;
  }

  const settled = (number: number, statuses = ['success', 'failure', 'error', 'killed']) =>
    waitFor(`build ${number} to be ${statuses.join('|')}`, async () => {
      const current = await build(number);
      return statuses.includes(current.status) ? current : undefined;
    });

  async function newest(): Promise<number> {
    const answer = await call({ url: url() }, `/api/repos/${REPO}/builds?per_page=1`, { token });
    return (answer.json as { number: number }[])[0]?.number ?? 0;
  }

  async function log(number: number, stage: number, stepNumber: number): Promise<string> {
    const answer = await call(
      { url: url() },
      `/api/repos/${REPO}/builds/${number}/logs/${stage}/${stepNumber}`,
      {
        token,
      },
    );
    expect(answer.status, answer.text).toBe(200);
    return (answer.json as { out: string }[]).map((line) => line.out).join('');
  }

  /** Commits a pipeline file to main and sends the push; returns the new build's number. */
  async function pushPipeline(file: string, message: string): Promise<number> {
    const before = await newest();
    github.commit(REPO, 'main', { '.drone.yml': file }, message);
    expect(await github.push(REPO, 'main', hookUrl)).toBe(200);
    return waitFor('the pushed build', async () => {
      const number = await newest();
      return number > before ? number : undefined;
    });
  }

  beforeAll(async () => {
    github = await startGitHubDouble({ enterprise: true });
    github.addUser({ login: 'octocat', email: 'octocat@example.com' });
    github.addUser({ login: 'forker' });
    github.addRepo({ owner: 'octocat', name: 'app', admins: ['octocat'], private: false });
    github.addRepo({ owner: 'forker', name: 'app', admins: ['forker'], private: false });
    github.commit(REPO, 'main', { 'README.md': 'hello\n' }, 'initial commit');
    port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-e2e-client-data-'));
    server = await startServer({
      ...serverEnv(port, dataDir, github),
      SVC_DATABASE_SECRET: 'e2e-database-secret-0123456789ab',
    });
    const session = await loginAs({ url: url() }, 'octocat');
    token = await tokenOf({ url: url() }, session);
    expect((await call({ url: url() }, '/api/user/repos', { token })).status).toBe(200);
    await enable({ url: url() }, session, REPO);
    hookUrl = github.hooks(REPO)[0]?.url ?? '';
    runner = startRunner(port, RUNNER, []);
  });

  afterAll(async () => {
    await runner?.stop();
    await server?.stop();
    await github?.close();
    if (docker.docker) {
      expect(await countMatching(docker.docker, { label: [`io.svc.owner=${RUNNER}`] })).toEqual({
        containers: 0,
        networks: 0,
        volumes: 0,
      });
    }
  });

  it('adds a secret with `svc secret add`; a build uses it and its log shows it masked', async () => {
    await svc('secret', 'add', REPO, '--name', 'password', '--data', PASSWORD);
    const listed = await svc('secret', 'ls', REPO, '--format', 'json');
    expect(listed.stdout).toContain('"password"');
    expect(listed.stdout).not.toContain(PASSWORD);
    const number = await pushPipeline(
      pipeline(
        'secret',
        step(
          'use',
          ['echo "the password is $${PASSWORD}"', 'test "$${PASSWORD}" = ' + PASSWORD],
          `  environment:\n    PASSWORD:\n      from_secret: password\n`,
        ),
      ),
      'use the secret',
    );
    const done = await settled(number);
    expect(done.status, JSON.stringify(done)).toBe('success');
    const text = await log(number, 1, 1);
    expect(text).toContain('the password is ********');
    expect(text).not.toContain(PASSWORD);
  });

  it('cancels a long step with `svc build cancel`: the build is killed and its containers are gone', async () => {
    const number = await pushPipeline(
      pipeline('long', step('wait', ['echo started', 'sleep 300'])),
      'a long step',
    );
    await waitFor('the long step to run', async () => {
      const current = await build(number);
      return current.stages[0]?.steps?.[0]?.status === 'running' ? true : undefined;
    });
    const filter = { label: [`io.svc.owner=${RUNNER}`, 'io.svc.run'] };
    expect((await countMatching(docker.docker!, filter)).containers).toBeGreaterThan(0);
    await svc('build', 'cancel', REPO, String(number));
    const done = await settled(number);
    expect(done.status).toBe('killed');
    expect(done.stages[0]?.status).toBe('killed');
    await waitFor('the step containers to be removed', async () =>
      (await countMatching(docker.docker!, filter)).containers === 0 ? true : undefined,
    );
  });

  it('restarts only the failed stage with `svc build restart --failed`, reusing the stage that passed', async () => {
    const file = [
      pipeline('stamp', step('stamp', ['echo stamped'])),
      pipeline('check', step('check', ['test "$${FIX}" = yes'])),
    ].join('---\n');
    const number = await pushPipeline(file, 'a stage that fails without FIX');
    const failed = await settled(number);
    expect(failed.stages.map((s) => [s.name, s.status])).toEqual([
      ['stamp', 'success'],
      ['check', 'failure'],
    ]);
    await svc('build', 'restart', REPO, String(number), '--failed', '-p', 'FIX=yes');
    const rerun = await newest();
    expect(rerun).toBeGreaterThan(number);
    const done = await settled(rerun);
    expect(done.status, JSON.stringify(done)).toBe('success');
    expect(done.stages.map((s) => [s.name, s.status])).toEqual([
      ['stamp', 'success'],
      ['check', 'success'],
    ]);
    // The stage that passed did not run again: same start, same log.
    expect(done.stages[0]?.started).toBe(failed.stages[0]?.started);
    expect(await log(rerun, 1, 1)).toContain('stamped');
  });

  it('holds a pull request from a fork until `svc build approve`, then runs it', async () => {
    github.commit(
      'forker/app',
      'patch',
      { '.drone.yml': pipeline('fork', step('hello', ['echo from a fork'])) },
      'a patch',
    );
    const pull = await github.pullRequest(REPO, 'patch', hookUrl, { fork: 'forker/app' });
    expect(pull.status).toBe(200);
    const number = await newest();
    const blocked = await build(number);
    expect([blocked.event, blocked.status]).toEqual(['pull_request', 'blocked']);
    const info = await svc('build', 'info', REPO, String(number));
    expect(info.stdout).toMatch(/approval/i);
    await svc('build', 'approve', REPO, String(number));
    const done = await settled(number);
    expect(done.status, JSON.stringify(done)).toBe('success');
    expect(await log(number, 1, 1)).toContain('from a fork');
  });

  it('runs a cron job now with `svc cron exec`, and the badge shows the branch’s newest build', async () => {
    const file = pipeline(
      'nightly',
      step('hello', ['echo "cron $${DRONE_CRON}"']),
      'trigger:\n  event: [cron]\n  cron: [nightly]\n',
    );
    github.commit(REPO, 'main', { '.drone.yml': file }, 'a nightly pipeline');
    await svc('cron', 'add', REPO, 'nightly', '@daily', '--branch', 'main');
    const before = await newest();
    await svc('cron', 'exec', REPO, 'nightly');
    const number = await newest();
    expect(number).toBeGreaterThan(before);
    const done = await settled(number);
    expect([done.event, done.status]).toEqual(['cron', 'success']);
    expect(await log(number, 1, 1)).toContain('cron nightly');
    // Public repository: the badge needs no token.
    const badge = await fetch(`${url()}/api/badges/${REPO}/status.svg`);
    expect(badge.status).toBe(200);
    expect(badge.headers.get('content-type')).toContain('image/svg+xml');
    expect(await badge.text()).toContain('success');
  });
});
