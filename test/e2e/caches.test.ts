/**
 * Issue 34, caches end to end: a real `svc server` (the built-in git provider, its in-process
 * Docker runner, SQLite, caches on its disk) builds pushes whose step has a `cache:`. A push on
 * main saves the cache; the next build restores it; a branch's first build restores main's;
 * the API lists and removes them.
 */
import { mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerForTests } from '../../src/engines/docker/testing.case.js';
import { call } from '../api/client.js';
import { gitAs } from '../support/git-client.js';
import { localGitAdmin } from '../support/local-git-admin.js';
import { freePort, providerServerEnv, startServer, waitFor, type SvcProcess } from './system.js';

const docker = await dockerForTests(['local/busybox', 'svc/git']);

const PIPELINE = `kind: pipeline
type: docker
name: default
steps:
- name: deps
  image: local/busybox
  pull: if-not-exists
  cache:
    key: deps-{{ checksum "lock" }}
    restore_keys: [deps-]
    paths: [deps]
  commands:
  - test -f deps/made && echo "warm=$(cat deps/made)" || echo cold
  - mkdir -p deps && echo "$DRONE_BRANCH $DRONE_BUILD_NUMBER" > deps/made
`;

/** Megabytes that do not compress, in deps/ (alone): uploads long enough to be caught midway, and big. */
const random = (megabytes: number) => `  commands:
  - rm -rf deps && mkdir deps && dd if=/dev/urandom of=deps/blob bs=1048576 count=${megabytes} 2>/dev/null
`;

/** The size of the largest file in `dir` (0 when there is none). */
function largest(dir: string): number {
  try {
    return Math.max(0, ...readdirSync(dir).map((name) => statSync(join(dir, name)).size));
  } catch {
    return 0;
  }
}

const git = gitAs({ name: 'Ada', email: 'ada@example.com' });

describe.skipIf(docker.skip)('caches: a real server and its runner', () => {
  let server: SvcProcess | undefined;
  let port = 0;
  let dataDir = '';
  let token = '';
  const url = (path = '') => `http://127.0.0.1:${port}${path}`;
  const work = mkdtempSync(join(tmpdir(), 'svc-caches-work-'));
  const remote = () => `http://ada:${token}@127.0.0.1:${port}/git/ada/hello.git`;

  const build = async (number: number) => {
    const ended = await waitFor(
      `build #${number} to end`,
      async () => {
        const answer = await call({ url: url() }, `/api/repos/ada/hello/builds/${number}`, { token });
        const status = (answer.json as { status?: string } | undefined)?.status;
        return status === 'success' || status === 'failure' || status === 'error' ? answer.json : undefined;
      },
      120_000,
    );
    const log = await call({ url: url() }, `/api/repos/ada/hello/builds/${number}/logs/1/2`, { token });
    const lines = Array.isArray(log.json) ? (log.json as { out: string }[]).map((l) => l.out.trimEnd()) : [];
    return { status: (ended as { status: string }).status, lines };
  };

  beforeAll(async () => {
    port = await freePort();
    dataDir = mkdtempSync(join(tmpdir(), 'svc-caches-data-'));
    server = await startServer(serverEnv());
    ({ token } = await localGitAdmin(url(), () => server?.log() ?? '', 'ada', 'ada-password-1'));
    const post = (path: string, body?: unknown) =>
      call({ url: url() }, path, { method: 'POST', token, body });
    expect((await post('/api/local/repos', { name: 'hello' })).status).toBe(201);
    expect((await post('/api/repos/ada/hello')).status).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
  });

  const serverEnv = () => ({
    ...providerServerEnv(port, dataDir, {}),
    SVC_SERVER_PORT: `:${port}`,
    SVC_SCML_ENABLED: 'true',
    SVC_RUNNER_LOCAL: 'true',
    SVC_STORAGE_DIR: join(dataDir, 'blobs'),
    SVC_CACHE_MAX_SIZE: '200MiB',
    DOCKER_HOST: process.env.DOCKER_HOST ?? '',
  });

  it('saves on main, restores into the next build, and into a new branch’s first build', async () => {
    git(work, 'init', '-q', '-b', 'main');
    writeFileSync(join(work, '.drone.yml'), PIPELINE);
    writeFileSync(join(work, 'lock'), 'v1\n');
    git(work, 'add', '.');
    git(work, 'commit', '-q', '-m', 'first');
    git(work, 'push', '-q', remote(), 'main');
    const first = await build(1);
    expect(first.status, first.lines.join('\n')).toBe('success');
    expect(first.lines).toContain('cold');
    expect(first.lines.at(-1)).toMatch(/^cache: saved "deps-[0-9a-f]{64}" \(deps\)/);
    expect(readdirSync(join(dataDir, 'blobs', 'caches'))).toHaveLength(1);

    writeFileSync(join(work, 'README.md'), 'more\n');
    git(work, 'add', '.');
    git(work, 'commit', '-q', '-m', 'second');
    git(work, 'push', '-q', remote(), 'main');
    const second = await build(2);
    expect(second.lines[0]).toMatch(/^cache: restored "deps-[0-9a-f]{64}", /);
    expect(second.lines).toContain('warm=main 1');

    git(work, 'checkout', '-q', '-b', 'feature');
    writeFileSync(join(work, 'lock'), 'v2\n');
    git(work, 'commit', '-q', '-am', 'a new lock');
    git(work, 'push', '-q', remote(), 'feature');
    const third = await build(3);
    // Another key, so main's entry comes through the restore key; saved under the branch's own scope.
    expect(third.lines[0], `${third.status}: ${third.lines.join('\n')}`).toMatch(/\(a restore key matched\)/);
    expect(third.lines).toContain('warm=main 1');
    expect(third.lines.at(-1)).toMatch(/^cache: saved /);
  }, 300_000);

  it('lists the caches by scope through the API, and removes them', async () => {
    const listed = await call({ url: url() }, '/api/repos/ada/hello/caches', { token });
    expect(listed.status, listed.text).toBe(200);
    const entries = listed.json as { key: string; scope: string; size: number }[];
    expect(entries.map((e) => e.scope).sort()).toEqual(['refs/heads/feature', 'refs/heads/main']);
    expect(entries.every((e) => e.size > 0)).toBe(true);
    const removed = await call({ url: url() }, '/api/repos/ada/hello/caches', { method: 'DELETE', token });
    expect(removed.status).toBe(204);
    expect((await call({ url: url() }, '/api/repos/ada/hello/caches', { token })).json).toEqual([]);
    expect(
      readdirSync(join(dataDir, 'blobs', 'caches', String(readdirSync(join(dataDir, 'blobs', 'caches'))[0]))),
    ).toEqual([]);
  }, 60_000);

  it('leaves no half-written cache when the server is SIGKILLed in the middle of an upload', async () => {
    git(work, 'checkout', '-q', 'main');
    writeFileSync(join(work, 'lock'), 'big\n');
    writeFileSync(join(work, '.drone.yml'), PIPELINE.replace(/ {2}commands:\n[\s\S]*$/, random(180)));
    git(work, 'commit', '-q', '-am', 'a big cache');
    git(work, 'push', '-q', remote(), 'main');
    // The archive is being written aside when the server dies.
    const unfinished = join(dataDir, 'blobs', '.unfinished');
    await waitFor(
      'the upload to be under way',
      () => Promise.resolve(largest(unfinished) > 20 * 1024 * 1024 ? true : undefined),
      120_000,
    );
    await server?.kill();
    server = await startServer(serverEnv());
    expect((await call({ url: url() }, '/api/repos/ada/hello/caches', { token })).json).toEqual([]);
    // A later build with the same key finds nothing: the killed upload left no cache.
    writeFileSync(
      join(work, '.drone.yml'),
      PIPELINE.replace(/ {2}commands:\n[\s\S]*$/, "  commands: ['ls deps || echo no deps']\n"),
    );
    git(work, 'commit', '-q', '-am', 'after the crash');
    git(work, 'push', '-q', remote(), 'main');
    const after = await waitFor('a build after the restart', async () => {
      const builds = (await call({ url: url() }, '/api/repos/ada/hello/builds', { token })).json as {
        number: number;
        message: string;
      }[];
      return builds.find((b) => b.message === 'after the crash')?.number;
    });
    const { lines } = await build(after);
    expect(lines[0]).toMatch(/^cache: nothing saved under "deps-[0-9a-f]{64}" or its restore keys$/);
    expect(lines).toContain('no deps');
  }, 300_000);

  it('evicts the least recently used cache when a repository’s caches outgrow SVC_CACHE_MAX_SIZE', async () => {
    const evicting = PIPELINE.replace('key: deps-', 'key: evict-')
      .replace('restore_keys: [deps-]', 'restore_keys: []')
      .replace(/ {2}commands:\n[\s\S]*$/, random(120));
    const keys: string[] = [];
    for (const version of ['e1', 'e2']) {
      writeFileSync(join(work, 'lock'), `${version}\n`);
      writeFileSync(join(work, '.drone.yml'), evicting);
      git(work, 'commit', '-q', '-am', `cache ${version}`);
      git(work, 'push', '-q', remote(), 'main');
      const number = await waitFor(`the build of ${version}`, async () => {
        const builds = (await call({ url: url() }, '/api/repos/ada/hello/builds', { token })).json as {
          number: number;
          message: string;
        }[];
        return builds.find((b) => b.message === `cache ${version}`)?.number;
      });
      const { lines } = await build(number);
      const saved = /^cache: saved "(evict-[0-9a-f]{64})"/.exec(lines.at(-1) ?? '');
      expect(saved, lines.join('\n')).not.toBeNull();
      keys.push(saved?.[1] ?? '');
    }
    // 2 × 120 MB is over 200 MiB: the first, used least recently, went.
    const listed = (await call({ url: url() }, '/api/repos/ada/hello/caches', { token })).json as {
      key: string;
    }[];
    expect(listed.map((entry) => entry.key).filter((key) => key.startsWith('evict-'))).toEqual([keys[1]]);
  }, 300_000);
});
