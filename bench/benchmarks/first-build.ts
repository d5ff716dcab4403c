import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, waitFor } from '../../test/e2e/system.js';
import type { Benchmark, BenchContext } from '../lib/benchmark.js';
import type { BenchResult } from '../lib/result.js';
import { round } from '../lib/stats.js';
import { gitAs } from '../../test/support/git-client.js';
import { launchBrowser } from '../../test/web/browser.js';

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
const LOGIN = 'new';
const PASSWORD = 'new-user-password';

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
 * git provider), then in Chromium: open the setup link and choose a name and password, create a
 * repository, run the two commands the page shows with the real `git` (the password as git's), open
 * the build that appears under them, and watch its page until it is green. `--fresh` first removes svc/git and its base, as on a machine that never
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
  // The new user's browser is open already: its start is not svc's.
  const browser = await launchBrowser();
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
  try {
    const page = await (await browser.newContext()).newPage();
    const link = await timed(phases, 'start', () =>
      waitFor(
        'the setup link',
        () => Promise.resolve(/Open (http:\/\/\S+\/setup\?token=[\w-]+)/.exec(log)?.[1]),
        30_000,
      ),
    );
    await timed(phases, 'setup', async () => {
      await page.goto(link);
      await page.getByLabel('Name').fill(LOGIN);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Create the account' }).click();
      await page.getByRole('heading', { name: 'Repositories' }).waitFor();
    });
    const commands = await timed(phases, 'repository', async () => {
      const box = page.getByRole('region', { name: 'create a repository' });
      await box.getByLabel('Name').fill('hello');
      await box.getByRole('button', { name: 'Create' }).click();
      return (await box.locator('pre').textContent()) ?? '';
    });
    const remote = /^git remote add svc (\S+)$/m.exec(commands)?.[1];
    if (remote === undefined) throw new Error(`the page showed no remote to add: ${commands}`);
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
      // The two commands the page showed; git would ask for the name and password, given here.
      git(work, 'remote', 'add', 'svc', remote.replace('://', `://${LOGIN}:${PASSWORD}@`));
      git(work, 'push', '-q', 'svc', 'main');
    });
    await timed(phases, 'green', async () => {
      // The build appears under the commands as the push makes it; its page follows it live.
      const box = page.getByRole('region', { name: 'create a repository' });
      await box.getByRole('link', { name: 'Build #1' }).click({ timeout: 60_000 });
      const graph = page.getByRole('img', { name: 'stage graph' });
      await graph.getByRole('button', { name: /stage default: (success|failure|error|killed)/ }).waitFor({
        timeout: 120_000,
      });
      const ended = await graph.getByRole('button', { name: /stage default: / }).getAttribute('aria-label');
      if (ended !== 'stage default: success') throw new Error(`the first build ended: ${ended}`);
    });
  } finally {
    await browser.close();
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

export const firstBuildBenchmark: Benchmark = { name: 'first-build', needs: ['docker'], run: firstBuild };
