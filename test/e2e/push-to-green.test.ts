import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countMatching, dockerForTests } from '../../src/engines/docker/testing.case.js';
import { verifyBody } from '../../src/plugins/http-signature.js';
import { call, enable, loginAs, tokenOf } from '../api/client.js';
import { startGitHubDouble, type GitHubDouble } from '../doubles/github/index.js';
import { startGitServer, type GitServer } from '../support/git-server.js';
import { freePort, serverEnv, startRunner, startServer, waitFor, type SvcProcess } from './system.js';

const docker = await dockerForTests(['local/busybox', 'svc/git']);
const REPO = 'octocat/app';
const RUNNER = `e2e-runner-${process.pid}`;

/** Two stages: `build` (a step talking to a service by name) and `deploy`, which depends on it. */
const PIPELINE = `
kind: pipeline
type: docker
name: build
services:
- name: cache
  image: local/busybox
  pull: if-not-exists
  commands: [ "mkdir -p /www && echo pong > /www/ping && httpd -f -p 8080 -h /www" ]
steps:
- name: test
  image: local/busybox
  pull: if-not-exists
  commands:
  - cat README.md
  - for i in $(seq 1 50); do wget -q -O - http://cache:8080/ping && exit 0; sleep 0.1; done; exit 1
---
kind: pipeline
type: docker
name: deploy
depends_on: [build]
steps:
- name: ship
  image: local/busybox
  pull: if-not-exists
  commands: [ "echo shipping $DRONE_COMMIT_SHA", "seq 1 300" ]
`;

/** svc's pipeline additions (issue 35): `retry:`, a step `timeout:`, a `matrix:` and a pipeline after it. */
const ADDITIONS = `
kind: pipeline
type: docker
name: retries
steps:
- name: flaky
  image: local/busybox
  pull: if-not-exists
  retry: {max: 2, when: [137]}
  commands:
  - if [ -f tried ]; then echo "second attempt"; exit 0; fi
  - touch tried
  - echo "first attempt"
  - exit 137
- name: slow
  image: local/busybox
  pull: if-not-exists
  timeout: 3s
  commands: [sleep 60]
- name: on-failure
  image: local/busybox
  pull: if-not-exists
  when: {status: [failure]}
  commands: [echo the stage goes on]
---
kind: pipeline
type: docker
name: matrix
clone: {disable: true}
matrix:
  GO: ["1.21", "1.22", "1.23"]
  DB: [mysql, postgres]
steps:
- name: show
  image: local/busybox
  pull: if-not-exists
  commands: ['echo "go=\${GO} db=\${DB}"']
---
kind: pipeline
type: docker
name: website
clone: {disable: true}
trigger:
  paths: [website/**]
steps:
- name: publish
  image: local/busybox
  pull: if-not-exists
  commands: [echo never]
---
kind: pipeline
type: docker
name: after
clone: {disable: true}
depends_on: [matrix]
steps:
- name: done
  image: local/busybox
  pull: if-not-exists
  commands: [echo all done]
`;

/** Path filters and a deployment (issue 35): `test` leaves docs alone, `deploy` runs on promotions. */
const DEPLOYS = `
kind: pipeline
type: docker
name: lint
clone: {disable: true}
trigger:
  event: [push]
steps:
- name: check
  image: local/busybox
  pull: if-not-exists
  commands: [echo lint]
---
kind: pipeline
type: docker
name: test
clone: {disable: true}
trigger:
  paths: {exclude: [docs/**]}
steps:
- name: unit
  image: local/busybox
  pull: if-not-exists
  commands: [echo unit tests]
---
kind: pipeline
type: docker
name: deploy
clone: {disable: true}
trigger:
  event: [promote]
steps:
- name: ship
  image: local/busybox
  pull: if-not-exists
  environment:
    KEY: {from_secret: DEPLOY_KEY}
  commands: ['test "$KEY" = k3y-for-production && echo the production key is here']
`;

const WEBHOOK_SECRET = 'e2e-webhook-secret';

/** A global webhook as the receiver got it: Drone's payload, and whether its signature verified. */
interface Delivery {
  kind: string | undefined;
  event: string;
  action: string;
  build?: { number: number; status: string };
  verified: boolean;
}

/** A webhook receiver on loopback that keeps every delivery. */
async function startReceiver(): Promise<{ server: Server; url: string; deliveries: Delivery[] }> {
  const deliveries: Delivery[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const headers = request.headers as Record<string, string | undefined>;
      const payload = JSON.parse(body.toString('utf8')) as Omit<Delivery, 'kind' | 'verified'>;
      deliveries.push({
        ...payload,
        kind: headers['x-drone-event'],
        verified: verifyBody(headers, body, WEBHOOK_SECRET, new Date()) === undefined,
      });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}/events`, deliveries };
}

interface ApiBuild {
  number: number;
  status: string;
  changed_files?: string[];
  paths_skipped?: string[];
  stages?: {
    number: number;
    name: string;
    status: string;
    steps?: { number: number; name: string; status: string; error?: string; attempts?: number }[];
  }[];
  after?: string;
  changed_files_unknown?: string;
}

describe.skipIf(docker.skip)(
  'a push becomes a green build: GitHub double → svc server → svc runner docker',
  () => {
    let github: GitHubDouble;
    let git: GitServer;
    let port = 0;
    let dataDir = '';
    let server: SvcProcess | undefined;
    let runner: SvcProcess | undefined;
    let token = '';
    let hubot = '';
    let hookUrl = '';
    let receiver: Awaited<ReturnType<typeof startReceiver>>;
    const url = () => `http://127.0.0.1:${port}`;
    const env = () => ({
      ...serverEnv(port, dataDir, github),
      SVC_WEBHOOK_ENDPOINT: receiver.url,
      SVC_WEBHOOK_SECRET: WEBHOOK_SECRET,
    });

    /** Commits to the real git server and mirrors the commit, same sha, at the GitHub double. */
    function push(files: Record<string, string>, message: string): string {
      const sha = git.commit(REPO, 'main', files, message);
      github.commit(REPO, 'main', files, message, 'octocat', sha);
      return sha;
    }

    async function build(number: number): Promise<ApiBuild> {
      const answer = await call({ url: url() }, `/api/repos/${REPO}/builds/${number}`, { token });
      expect(answer.status, answer.text).toBe(200);
      return answer.json as ApiBuild;
    }

    const finishedBuild = (number: number) =>
      waitFor(`build ${number} to finish`, async () => {
        const current = await build(number);
        return ['success', 'failure', 'error', 'killed'].includes(current.status) ? current : undefined;
      });

    async function log(number: number, stage: string, step: string): Promise<string[]> {
      const found = await build(number);
      const stageRow = found.stages?.find((s) => s.name === stage);
      const stepRow = stageRow?.steps?.find((s) => s.name === step);
      expect(stepRow, `${stage}/${step} in ${JSON.stringify(found)}`).toBeDefined();
      const answer = await call(
        { url: url() },
        `/api/repos/${REPO}/builds/${number}/logs/${stageRow?.number}/${stepRow?.number}`,
        { token },
      );
      expect(answer.status, answer.text).toBe(200);
      return (answer.json as { out: string }[]).map((line) => line.out);
    }

    beforeAll(async () => {
      github = await startGitHubDouble({ enterprise: true });
      github.addUser({ login: 'octocat', email: 'octocat@example.com' });
      github.addUser({ login: 'hubot', email: 'hubot@example.com' });
      git = await startGitServer(docker.docker!, { 'io.svc.owner': RUNNER });
      github.addRepo({
        owner: 'octocat',
        name: 'app',
        admins: ['octocat'],
        writers: ['hubot'],
        cloneUrl: git.cloneUrl(REPO),
      });
      push({ 'README.md': 'hello from the repository\n' }, 'initial commit');
      port = await freePort();
      dataDir = mkdtempSync(join(tmpdir(), 'svc-e2e-data-'));
      receiver = await startReceiver();
      server = await startServer(env());
      const session = await loginAs({ url: url() }, 'octocat');
      token = await tokenOf({ url: url() }, session);
      expect((await call({ url: url() }, '/api/user/repos', { token })).status).toBe(200);
      await enable({ url: url() }, session, REPO);
      // The second approver of the deployment test; after the enabling the global webhook test expects first.
      hubot = await tokenOf({ url: url() }, await loginAs({ url: url() }, 'hubot'));
      expect((await call({ url: url() }, '/api/user/repos', { token: hubot })).status).toBe(200);
      const [hook] = github.hooks(REPO);
      expect(hook?.url).toBe(`${url()}/hook`);
      hookUrl = hook?.url ?? '';
      runner = startRunner(port, RUNNER, [git.network]);
    });

    afterAll(async () => {
      await runner?.stop();
      await server?.stop();
      await git?.close();
      await github?.close();
      await new Promise((resolve) => receiver?.server.close(resolve));
      if (docker.docker) {
        expect(await countMatching(docker.docker, { label: [`io.svc.owner=${RUNNER}`] })).toEqual({
          containers: 0,
          networks: 0,
          volumes: 0,
        });
      }
    });

    it('clones, runs both stages, reports pending → running → success, and serves every log', async () => {
      const sha = push({ '.drone.yml': PIPELINE }, 'add the pipeline');
      expect(await github.push(REPO, 'main', hookUrl)).toBe(200);
      const done = await finishedBuild(1);
      expect(done.status, JSON.stringify(done)).toBe('success');
      expect(done.stages?.map((s) => [s.name, s.status])).toEqual([
        ['build', 'success'],
        ['deploy', 'success'],
      ]);

      expect(await log(1, 'build', 'test')).toEqual(
        expect.arrayContaining(['+ cat README.md', 'hello from the repository', 'pong']),
      );
      const ship = await log(1, 'deploy', 'ship');
      expect(ship).toContain(`shipping ${sha}`);
      expect(ship.filter((line) => /^\d+$/.test(line))).toHaveLength(300);
      expect((await log(1, 'build', 'clone')).join('\n')).toContain(sha);

      const statuses = await waitFor('the final commit status', () => {
        const posted = github.statuses(REPO, sha);
        return Promise.resolve(posted.at(-1)?.state === 'success' ? posted : undefined);
      });
      expect(statuses.map((s) => s.state)).toEqual(['pending', 'pending', 'success']);
      // GitHub has no "running" state: svc posts it as pending, and says so in the description.
      expect(statuses.map((s) => s.description)).toEqual([
        'Build is pending',
        'Build is running',
        'Build is passing',
      ]);
      expect(statuses.every((s) => s.context === 'continuous-integration/svc/push')).toBe(true);

      // Global webhooks, signed: the login registered octocat, the repository was enabled, and
      // build 1 was created, then updated up to its success.
      const final = await waitFor('the webhook of the finished build', () =>
        Promise.resolve(
          receiver.deliveries.find((d) => d.build?.number === 1 && d.build.status === 'success'),
        ),
      );
      expect(final).toMatchObject({ kind: 'build', event: 'build', action: 'updated' });
      const seen = receiver.deliveries.map((d) => `${d.event}:${d.action}`);
      expect(seen.slice(0, 2)).toEqual(['user:created', 'repo:enabled']);
      expect(seen.filter((event) => event === 'build:created')).toHaveLength(1);
      expect(
        receiver.deliveries.find((d) => d.action === 'created' && d.event === 'build')?.build?.status,
      ).toBe('pending');
      expect(receiver.deliveries.every((d) => d.verified && d.kind === d.event)).toBe(true);
    });

    it('reports a failing step as a failed build', async () => {
      const failing = PIPELINE.replace('- cat README.md', '- cat README.md\n  - exit 3');
      const sha = push({ '.drone.yml': failing }, 'break the tests');
      expect(await github.push(REPO, 'main', hookUrl)).toBe(200);
      const done = await finishedBuild(2);
      expect(done.status).toBe('failure');
      expect(done.stages?.map((s) => [s.name, s.status])).toEqual([
        ['build', 'failure'],
        ['deploy', 'skipped'],
      ]);
      await waitFor('the failure status', () =>
        Promise.resolve(github.statuses(REPO, sha).at(-1)?.state === 'failure' ? true : undefined),
      );
    });

    it('changes nothing for a webhook with a bad signature', async () => {
      const before = await call({ url: url() }, `/api/repos/${REPO}/builds`, { token });
      push({ 'NOTES.md': 'unsigned\n' }, 'a forged push');
      expect(await github.push(REPO, 'main', hookUrl, { secret: 'not-the-secret' })).toBe(401);
      const after = await call({ url: url() }, `/api/repos/${REPO}/builds`, { token });
      expect(after.json).toEqual(before.json);
    });

    it('loses nothing when the server is killed with SIGKILL between queueing and running', async () => {
      await runner?.stop(); // nobody takes the build while the server is killed
      const sha = push({ '.drone.yml': PIPELINE, 'README.md': 'after the crash\n' }, 'survive a crash');
      expect(await github.push(REPO, 'main', hookUrl)).toBe(200);
      const queued = await build(3);
      expect(queued.status).toBe('pending');

      await server?.kill();
      server = await startServer(env());
      runner = startRunner(port, RUNNER, [git.network]);

      const done = await finishedBuild(3);
      expect(done.status, JSON.stringify(done)).toBe('success');
      const ship = await log(3, 'deploy', 'ship');
      expect(ship).toContain(`shipping ${sha}`);
      expect(ship.filter((line) => /^\d+$/.test(line))).toEqual(
        Array.from({ length: 300 }, (_, i) => String(i + 1)),
      );
      expect(await log(3, 'build', 'test')).toContain('after the crash');
    });
    it('runs svc’s additions through the GitHub double: a retry after exit 137, a step timeout, a 3×2 matrix', async () => {
      push({ '.drone.yml': ADDITIONS }, 'retries, a timeout and a matrix');
      expect(await github.push(REPO, 'main', hookUrl)).toBe(200);
      const done = await waitFor(
        'build 4 to finish',
        async () => {
          const current = await build(4);
          return ['success', 'failure', 'error', 'killed'].includes(current.status) ? current : undefined;
        },
        180_000,
      );
      const stages = done.stages ?? [];
      expect(stages.map((s) => s.name)).toEqual([
        'retries',
        ...['1.21', '1.22', '1.23'].flatMap((go) => [
          `matrix (GO=${go}, DB=mysql)`,
          `matrix (GO=${go}, DB=postgres)`,
        ]),
        'after',
      ]);
      expect(stages.map((s) => s.status)).toEqual([
        'failure',
        ...Array<string>(6).fill('success'),
        'success',
      ]);
      const steps = new Map(stages[0]?.steps?.map((step) => [step.name, step]));
      expect(steps.get('flaky')).toMatchObject({ status: 'success', attempts: 2 });
      expect(steps.get('slow')).toMatchObject({
        status: 'failure',
        error: 'step timed out after 3s (its timeout)',
      });
      // A timed-out step fails like any other: the failure steps run.
      expect(steps.get('on-failure')).toMatchObject({ status: 'success', attempts: 1 });
      const flaky = (await log(4, 'retries', 'flaky')).filter((line) => !line.startsWith('+ '));
      expect(flaky).toEqual([
        'first attempt',
        'retry: attempt 1 of 3 failed (exit code 137); the step runs again',
        'second attempt',
      ]);
      expect(await log(4, 'matrix (GO=1.22, DB=postgres)', 'show')).toContain('go=1.22 db=postgres');
      // Path filters: the push changed the pipeline file alone, so website/** left that pipeline out.
      expect(done).toMatchObject({ changed_files: ['.drone.yml'], paths_skipped: ['website'] });
    }, 240_000);

    it('skips a docs-only push’s tests, runs all after a forced push, and deploys once two people approved', async () => {
      const api = (path: string, as: string, options: { method?: string; body?: unknown } = {}) =>
        call({ url: url() }, `/api/repos/${REPO}${path}`, { ...options, token: as });
      const newest = async () => (await api('/builds?per_page=1', token)).json as ApiBuild[];
      const finished = (number: number) =>
        waitFor(
          `build ${number} to finish`,
          async () => {
            const current = await build(number);
            return ['success', 'failure', 'error', 'killed', 'declined'].includes(current.status)
              ? current
              : undefined;
          },
          120_000,
        );
      push({ '.drone.yml': DEPLOYS }, 'test and deploy');
      expect(await github.push(REPO, 'main', hookUrl)).toBe(200);
      const first = await finished((await newest())[0]?.number ?? 0);
      expect(first.stages?.map((s) => [s.name, s.status])).toEqual([
        ['lint', 'success'],
        ['test', 'success'],
      ]);

      // Only docs changed: the tests are left out, and the build says so.
      push({ '.drone.yml': DEPLOYS, 'docs/guide.md': 'how to\n' }, 'docs only');
      expect(await github.push(REPO, 'main', hookUrl)).toBe(200);
      const docs = await finished((await newest())[0]?.number ?? 0);
      expect(docs.stages?.map((s) => s.name)).toEqual(['lint']);
      expect(docs).toMatchObject({ changed_files: ['docs/guide.md'], paths_skipped: ['test'] });

      // A forced push whose earlier head is gone: the files are not known, everything runs, the build says why.
      const sha = push({ '.drone.yml': DEPLOYS, 'docs/guide.md': 'rewritten\n' }, 'rewritten history');
      expect(await github.forcePush(REPO, 'main', hookUrl, 'f'.repeat(40))).toBe(200);
      const forced = await finished((await newest())[0]?.number ?? 0);
      expect(forced).toMatchObject({ after: sha, status: 'success' });
      expect(forced.changed_files_unknown).toMatch(/cannot compare ffffffffffff/);
      expect(forced.stages?.map((s) => s.name)).toEqual(['lint', 'test']);

      // production: two approvals by different people, and a key only its deployments get.
      const environment = await api('/environments', token, {
        method: 'POST',
        body: { name: 'production', approvers: { users: ['octocat', 'hubot'] }, required_approvals: 2 },
      });
      expect(environment.status, environment.text).toBe(200);
      const secret = await api('/secrets', token, {
        method: 'POST',
        body: { name: 'DEPLOY_KEY', data: 'k3y-for-production', environment: 'production' },
      });
      expect(secret.status, secret.text).toBe(200);
      const promoted = await api(`/builds/${forced.number}/promote?target=production`, token, {
        method: 'POST',
      });
      expect(promoted.status, promoted.text).toBe(200);
      const number = (promoted.json as ApiBuild).number;
      expect((await build(number)).status).toBe('blocked');
      const deploy = (await build(number)).stages?.find((s) => s.name === 'deploy')?.number ?? 0;
      const mine = await api(`/builds/${number}/approve/${deploy}`, token, {
        method: 'POST',
        body: { comment: 'checked' },
      });
      expect((mine.json as ApiBuild).status).toBe('blocked');
      expect((await api(`/builds/${number}/approve/${deploy}`, token, { method: 'POST' })).status).toBe(409);
      await api(`/builds/${number}/approve/${deploy}`, hubot, {
        method: 'POST',
        body: { comment: 'ship it' },
      });
      const shipped = await finished(number);
      expect(shipped.status).toBe('success');
      expect(await log(number, 'deploy', 'ship')).toContain('the production key is here');
      const decisions = (await api(`/builds/${number}/approvals`, token)).json as {
        login: string;
        comment: string;
      }[];
      expect(decisions.map((d) => [d.login, d.comment])).toEqual([
        ['octocat', 'checked'],
        ['hubot', 'ship it'],
      ]);
    }, 300_000);
  },
);
