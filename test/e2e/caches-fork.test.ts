/*
 * Issue 34: a pull request from a fork reads the default branch's cache and cannot write one (the
 * poisoning class of CVE-2026-34042). `svc server` with its own Docker runner and the GitHub
 * double: a push on main saves `deps`; a fork's pull request, approved, restores it, changes the
 * files, and its save is refused; main's next build still restores main's files.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerForTests } from '../../src/engines/docker/testing.case.js';
import { call, enable, loginAs, tokenOf } from '../api/client.js';
import { startGitHubDouble, type GitHubDouble } from '../doubles/github/index.js';
import { freePort, serverEnv, startServer, waitFor, type SvcProcess } from './system.js';

const docker = await dockerForTests(['local/busybox']);
const REPO = 'octocat/app';
const pipeline = (write: string, key = 'deps') => `kind: pipeline
type: docker
name: default
clone:
  disable: true
steps:
- name: deps
  image: local/busybox
  pull: if-not-exists
  cache:
    key: ${key}
    restore_keys: [deps]
    paths: [deps]
  commands:
  - 'cat deps/who 2>/dev/null || echo none'
  - 'mkdir -p deps && echo ${write} > deps/who && echo ${write} > deps/fresh'
`;

describe.skipIf(docker.skip)('caches and a fork’s pull request', () => {
  let github: GitHubDouble;
  let server: SvcProcess | undefined;
  let port = 0;
  let token = '';
  const url = () => `http://127.0.0.1:${port}`;
  const hook = () => github.hooks(REPO)[0]?.url ?? '';

  const ended = (number: number) =>
    waitFor(`build #${number} to end`, async () => {
      const answer = (await call({ url: url() }, `/api/repos/${REPO}/builds/${number}`, { token })).json as {
        status: string;
      };
      return ['success', 'failure', 'error', 'killed'].includes(answer.status) ? answer : undefined;
    });
  const lines = async (number: number) => {
    const log = await call({ url: url() }, `/api/repos/${REPO}/builds/${number}/logs/1/1`, { token });
    // Without the shell's `+ command` echo lines.
    return (log.json as { out: string }[])
      .map((line) => line.out.trimEnd())
      .filter((l) => !l.startsWith('+ '));
  };

  beforeAll(async () => {
    github = await startGitHubDouble({ enterprise: true });
    github.addUser({ login: 'octocat' });
    github.addRepo({ owner: 'octocat', name: 'app', admins: ['octocat'] });
    github.addUser({ login: 'forker' });
    github.addRepo({ owner: 'forker', name: 'app', admins: ['forker'], private: false });
    github.commit(REPO, 'main', { '.drone.yml': pipeline('main') }, 'first');
    port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-caches-fork-'));
    server = await startServer({
      ...serverEnv(port, dataDir, github),
      SVC_RUNNER_LOCAL: 'true',
      SVC_STORAGE_DIR: join(dataDir, 'blobs'),
      DOCKER_HOST: process.env.DOCKER_HOST ?? '',
    });
    const session = await loginAs({ url: url() }, 'octocat');
    token = await tokenOf({ url: url() }, session);
    await enable({ url: url() }, session, REPO);
  });

  afterAll(async () => {
    await server?.stop();
    await github?.close();
  });

  it('restores main’s cache into the fork’s build and refuses its save', async () => {
    expect(await github.push(REPO, 'main', hook())).toBe(200);
    expect((await ended(1)).status).toBe('success');
    expect((await lines(1)).at(-1)).toMatch(/^cache: saved "deps" \(deps\)/);

    // Another key, so that the fork's build has something to save (an exact hit is not saved again).
    github.commit('forker/app', 'patch', { '.drone.yml': pipeline('mallory', 'deps-fork') }, 'a patch');
    expect((await github.pullRequest(REPO, 'patch', hook(), { fork: 'forker/app' })).status).toBe(200);
    const approved = await call({ url: url() }, `/api/repos/${REPO}/builds/2/approve/1`, {
      method: 'POST',
      token,
    });
    expect(approved.status, approved.text).toBeLessThan(300);
    expect((await ended(2)).status).toBe('success');
    const fork = await lines(2);
    expect(fork[0]).toMatch(/^cache: restored "deps" \(a restore key matched\), /);
    expect(fork[1]).toBe('main');
    expect(fork.at(-1)).toBe(
      'cache: not saved: a pull request from a fork reads caches but never writes one',
    );

    const listed = (await call({ url: url() }, `/api/repos/${REPO}/caches`, { token })).json as {
      scope: string;
    }[];
    expect(listed.map((entry) => entry.scope)).toEqual(['refs/heads/main']);
    github.commit(REPO, 'main', { '.drone.yml': pipeline('main') }, 'second');
    expect(await github.push(REPO, 'main', hook())).toBe(200);
    await ended(3);
    expect((await lines(3))[1]).toBe('main');
  }, 240_000);
});
