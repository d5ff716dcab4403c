import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, waitFor } from '../../test/e2e/system.js';
import type { Benchmark, BenchContext } from '../lib/benchmark.js';
import type { BenchResult } from '../lib/result.js';
import { round } from '../lib/stats.js';
import { gitAs } from '../../test/support/git-client.js';

const ROOT = join(import.meta.dirname, '..', '..');

/** What a new user's steps cost, each in milliseconds. */
interface Phases {
  images: number;
  start: number;
  setup: number;
  repository: number;
  push: number;
  green: number;
}

const git = gitAs({ name: 'New User', email: 'new@example.com' });

/** Times `step`, adding it to `phases` under `name`. */
async function timed<T>(phases: Partial<Phases>, name: keyof Phases, step: () => Promise<T> | T): Promise<T> {
  const started = performance.now();
  const value = await step();
  phases[name] = performance.now() - started;
  return value;
}

/**
 * The first five minutes (issue 33), as docs/quickstart.md's first section has a new user do them
 * after `npm ci`: build the clone image, `svc server --local` (SQLite, its own runner, the built-in
 * git provider), open the setup link, make a repository, push a pipeline with the real `git`, and
 * wait for the green build. `--fresh` first removes svc/git and its base, as on a machine that never
 * ran svc. Baseline: one `docker run` of the same step's image, the floor of any build.
 */
async function firstBuild(ctx: BenchContext): Promise<BenchResult[]> {
  const phases: Partial<Phases> = {};
  const fresh = ctx.flags.includes('--fresh');
  if (fresh) {
    for (const image of ['svc/git:latest', 'svc/git-base:bookworm'])
      execFileSync('docker', ['image', 'rm', '-f', image], { stdio: 'ignore' });
  }
  await timed(phases, 'images', () =>
    execFileSync('bash', [join(ROOT, 'scripts/images.sh'), '--only', 'svc/git'], { stdio: 'ignore' }),
  );
  const dir = mkdtempSync(join(tmpdir(), 'svc-first-build-'));
  const port = await freePort();
  const server = spawn(ctx.node, [ctx.svcMain, 'server', '--local'], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: dir,
      DOCKER_HOST: process.env.DOCKER_HOST ?? '',
      SVC_SERVER_PORT: `:${port}`,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  server.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  try {
    const link = await timed(phases, 'start', () =>
      waitFor(
        'the setup link',
        () => Promise.resolve(/Open (http:\/\/\S+\/setup\?token=[\w-]+)/.exec(log)?.[1]),
        30_000,
      ),
    );
    const token = await timed(phases, 'setup', () =>
      setUp(url, new URL(link).searchParams.get('token') ?? ''),
    );
    await timed(phases, 'repository', async () => {
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const made = await fetch(`${url}/api/local/repos`, {
        method: 'POST',
        headers,
        body: '{"name":"hello"}',
      });
      if (made.status !== 201) throw new Error(`making the repository answered ${made.status}`);
      const enabled = await fetch(`${url}/api/repos/new/hello`, { method: 'POST', headers });
      if (enabled.status !== 200) throw new Error(`enabling it answered ${enabled.status}`);
    });
    const work = mkdtempSync(join(tmpdir(), 'svc-first-build-work-'));
    await timed(phases, 'push', () => {
      git(work, 'init', '-q', '-b', 'main');
      writeFileSync(join(work, 'README.md'), 'hello\n');
      writeFileSync(
        join(work, '.drone.yml'),
        'kind: pipeline\ntype: docker\nname: default\nsteps:\n- name: greet\n  image: local/busybox\n  pull: if-not-exists\n  commands:\n  - cat README.md\n',
      );
      git(work, 'add', '.');
      git(work, 'commit', '-q', '-m', 'first');
      git(work, 'push', '-q', `http://new:${token}@127.0.0.1:${port}/git/new/hello.git`, 'main');
    });
    const status = await timed(phases, 'green', () =>
      waitFor(
        'the first build to end',
        async () => {
          const answer = await fetch(`${url}/api/repos/new/hello/builds/1`, {
            headers: { authorization: `Bearer ${token}` },
          });
          const build = answer.status === 200 ? ((await answer.json()) as { status: string }) : undefined;
          return build !== undefined && ['success', 'failure', 'error', 'killed'].includes(build.status)
            ? build.status
            : undefined;
        },
        120_000,
      ),
    );
    if (status !== 'success') throw new Error(`the first build ended ${status}`);
  } finally {
    server.kill('SIGTERM');
    await new Promise((resolve) => server.once('close', resolve));
  }
  const started = performance.now();
  execFileSync('docker', ['run', '--rm', 'local/busybox', 'echo', 'hello'], { stdio: 'ignore' });
  const baseline = performance.now() - started;
  const total = Object.values(phases).reduce((sum, ms) => sum + ms, 0);
  const parts = Object.entries(phases).map(([name, ms]) => `${name} ${round(ms / 1000, 1)} s`);
  return [
    {
      name: 'first-build',
      metric: `npm ci done → first green build, built-in git provider${fresh ? ', fresh images' : ''}`,
      svc: round(total / 1000, 1),
      baseline: round(baseline / 1000, 2),
      ratio: round(total / baseline),
      unit: 's',
      runs: 1,
      p50: round(total / 1000, 1),
      p99: round(total / 1000, 1),
      notes: `docs/quickstart.md's first section, scripted: ${parts.join(', ')}; baseline: one docker run of the step's image`,
    },
  ];
}

/** The setup link's form as a browser posts it, then an API token from the account's session. */
async function setUp(url: string, setupToken: string): Promise<string> {
  const made = await fetch(`${url}/setup`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: setupToken, login: 'new', password: 'new-user-password' }).toString(),
  });
  if (made.status !== 302) throw new Error(`the setup form answered ${made.status}`);
  const cookie = made.headers
    .getSetCookie()
    .filter((value) => !value.startsWith('svc_login_state='))
    .map((value) => value.split(';')[0])
    .join('; ');
  const me = (await (await fetch(`${url}/api/user`, { headers: { cookie } })).json()) as { csrf: string };
  const rotated = await fetch(`${url}/api/user/token?rotate=true`, {
    method: 'POST',
    headers: { cookie, 'x-csrf-token': me.csrf },
  });
  return ((await rotated.json()) as { token: string }).token;
}

export const firstBuildBenchmark: Benchmark = { name: 'first-build', needs: ['docker'], run: firstBuild };
