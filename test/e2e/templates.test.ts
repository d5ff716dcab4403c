/*
 * Templates end to end: a template added with `svc template add` (and one through the API), a push
 * of a .drone.yml holding `kind: template`, through the GitHub double to `svc server`, rendered and
 * run by `svc runner docker` on the real Docker engine; a missing template makes an error build.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countMatching, dockerForTests } from '../../src/engines/docker/testing.case.js';
import { call, enable, loginAs, tokenOf } from '../api/client.js';
import { startGitHubDouble, type GitHubDouble } from '../doubles/github/index.js';
import { startGitServer, type GitServer } from '../support/git-server.js';
import { runSvc } from '../support/svc-process.js';
import { freePort, serverEnv, startRunner, startServer, waitFor, type SvcProcess } from './system.js';

const docker = await dockerForTests(['local/busybox', 'svc/git']);
const REPO = 'octocat/app';
const RUNNER = `e2e-templates-${process.pid}`;

/** A YAML template: a step per input, the build and repository facts Drone gives templates. */
const GREET = `kind: pipeline
type: docker
name: {{ .input.name }}
steps:
{{- range $i, $who := .input.greet }}
- name: greet-{{ $i }}
  image: local/busybox
  pull: if-not-exists
  commands:
  - cat README.md
  - echo "hello {{ $who | upper }} from {{ $.repo.Slug }} at {{ slice $.build.After 0 7 }}, build \${DRONE_BUILD_NUMBER}"
{{- end }}
`;

const STARLARK = `def main(ctx):
  return [{
    "kind": "pipeline",
    "type": "docker",
    "name": "star-" + v,
    "clone": {"disable": True},
    "steps": [{"name": "show", "image": "local/busybox", "pull": "if-not-exists",
               "commands": ["echo version " + v + " on " + ctx.build.branch]}],
  } for v in ctx.input.versions]
`;

interface ApiBuild {
  number: number;
  status: string;
  error?: string;
  stages?: { number: number; name: string; status: string; steps?: { number: number; name: string }[] }[];
}

describe.skipIf(docker.skip)(
  'a templated pipeline runs: GitHub double → svc server → svc runner docker',
  () => {
    let github: GitHubDouble;
    let git: GitServer;
    let port = 0;
    let server: SvcProcess | undefined;
    let runner: SvcProcess | undefined;
    let token = '';
    let hookUrl = '';
    const url = () => `http://127.0.0.1:${port}`;

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

    const finished = (number: number) =>
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
      git = await startGitServer(docker.docker!, { 'io.svc.owner': RUNNER });
      github.addRepo({ owner: 'octocat', name: 'app', admins: ['octocat'], cloneUrl: git.cloneUrl(REPO) });
      push({ 'README.md': 'hello from the repository\n' }, 'initial commit');
      port = await freePort();
      const dataDir = mkdtempSync(join(tmpdir(), 'svc-e2e-templates-'));
      server = await startServer({ ...serverEnv(port, dataDir, github), SVC_TMPLSCRIPT_ENABLED: 'true' });
      const session = await loginAs({ url: url() }, 'octocat');
      token = await tokenOf({ url: url() }, session);
      await enable({ url: url() }, session, REPO);
      hookUrl = github.hooks(REPO)[0]?.url ?? '';
      runner = startRunner(port, RUNNER, [git.network]);
    });

    afterAll(async () => {
      await runner?.stop();
      await server?.stop();
      await git?.close();
      await github?.close();
      if (docker.docker) {
        expect(await countMatching(docker.docker, { label: [`io.svc.owner=${RUNNER}`] })).toEqual({
          containers: 0,
          networks: 0,
          volumes: 0,
        });
      }
    });

    it('renders a YAML template added with svc template add, and runs its steps', async () => {
      const cwd = mkdtempSync(join(tmpdir(), 'svc-e2e-template-cli-'));
      writeFileSync(join(cwd, 'greet.yaml'), GREET);
      const added = await runSvc(
        ['template', 'add', '--namespace', 'octocat', '--name', 'greet.yaml', '--data', '@greet.yaml'],
        { cwd, env: { SVC_SERVER: url(), SVC_TOKEN: token } },
      );
      expect(added.code, added.stderr).toBe(0);

      const file = 'kind: template\nload: greet.yaml\ndata:\n  name: greetings\n  greet: [world, drone]\n';
      const sha = push({ '.drone.yml': file }, 'use a template');
      expect(await github.push(REPO, 'main', hookUrl)).toBe(200);
      const done = await finished(1);
      expect(done.status, JSON.stringify(done)).toBe('success');
      expect(done.stages?.map((s) => [s.name, s.status])).toEqual([['greetings', 'success']]);
      const short = sha.slice(0, 7);
      expect(await log(1, 'greetings', 'greet-0')).toEqual(
        expect.arrayContaining([
          'hello from the repository',
          `hello WORLD from octocat/app at ${short}, build 1`,
        ]),
      );
      expect(await log(1, 'greetings', 'greet-1')).toContain(
        `hello DRONE from octocat/app at ${short}, build 1`,
      );
      await waitFor('the success status', () =>
        Promise.resolve(github.statuses(REPO, sha).at(-1)?.state === 'success' ? true : undefined),
      );
    }, 180_000);

    it('renders a Starlark template with ctx.input, one pipeline per input', async () => {
      const created = await call({ url: url() }, '/api/templates/octocat', {
        method: 'POST',
        token,
        body: { name: 'versions.star', data: STARLARK },
      });
      expect(created.status, created.text).toBe(200);
      push(
        { '.drone.yml': 'kind: template\nload: versions.star\ndata: {versions: ["1", "2"]}\n' },
        'starlark',
      );
      expect(await github.push(REPO, 'main', hookUrl)).toBe(200);
      const done = await finished(2);
      expect(done.status, JSON.stringify(done)).toBe('success');
      expect(done.stages?.map((s) => s.name)).toEqual(['star-1', 'star-2']);
      expect(await log(2, 'star-2', 'show')).toContain('version 2 on main');
    }, 180_000);

    it('makes an error build that names a template the namespace does not have', async () => {
      const sha = push({ '.drone.yml': 'kind: template\nload: nowhere.yaml\n' }, 'a missing template');
      expect(await github.push(REPO, 'main', hookUrl)).toBe(200);
      const done = await finished(3);
      expect(done).toMatchObject({
        status: 'error',
        error: 'template nowhere.yaml not found in namespace octocat (loaded at .drone.yml:2)',
      });
      await waitFor('the error status', () =>
        Promise.resolve(github.statuses(REPO, sha).at(-1)?.state === 'error' ? true : undefined),
      );
    });
  },
);
