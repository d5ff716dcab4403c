import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cron } from '../../core/cron.js';
import type { Repo } from '../../core/repo.js';
import type { Store } from '../../core/store.js';
import { newCron, newRepo, newUser } from '../../store/cases/fixtures.case.js';
import { openStore } from '../../store/index.js';
import { startGitHubDouble, type GitHubDouble } from '../../../test/doubles/github/index.js';
import { testDialects, type TestDatabase } from '../../../test/support/databases.js';
import { CommitBuilds, Trigger } from '../trigger/index.js';
import { CronScheduler } from './scheduler.js';
import { githubProvider } from '../trigger/testing.case.js';

const FILE = `kind: pipeline
name: nightly
trigger:
  event: [cron]
steps:
- name: echo
  image: alpine
  commands: [echo \${DRONE_CRON}]
`;

const DAY = 86_400_000;

for (const dialect of testDialects()) {
  /** Two servers (two store connections, two triggers) on one database, the GitHub double as provider. */
  describe.skipIf(dialect.skip)(`CronScheduler on ${dialect.name}`, () => {
    let github: GitHubDouble;
    let database: TestDatabase;
    let stores: Store[];
    let repo: Repo;
    let other: Repo;
    let sha: string;
    const logger = pino({ level: 'silent' });

    function scheduler(store: Store, interval = 60_000): CronScheduler {
      const provider = githubProvider(github);
      const trigger = new Trigger({
        store,
        provider,
        queue: { wake: () => undefined },
        listener: { buildUpdated: () => Promise.resolve() },
        system: { proto: 'https', host: 'ci.example.com', version: 'test' },
        logger,
      });
      const builds = new CommitBuilds({ users: store.users, provider, trigger });
      return new CronScheduler({ interval, crons: store.crons, repos: store.repos, builds, logger });
    }

    const store = () => stores[0] as Store;
    const cronBuilds = async (r: Repo) =>
      (await store().builds.list(r.id, { page: 1, perPage: 100 })).filter((b) => b.event === 'cron');

    beforeAll(async () => {
      github = await startGitHubDouble();
      const { token } = github.addUser({ login: 'octocat' });
      const app = github.addRepo({ owner: 'octocat', name: 'app', admins: ['octocat'] });
      const lib = github.addRepo({ owner: 'octocat', name: 'lib', admins: ['octocat'] });
      sha = github.commit('octocat/app', 'main', { '.drone.yml': FILE }, 'nightly');
      github.commit('octocat/lib', 'main', { '.drone.yml': FILE });
      database = await dialect.create();
      stores = [
        await openStore({ datasource: database.datasource }),
        await openStore({ datasource: database.datasource }),
      ];
      const owner = await store().users.create(
        newUser({ login: 'octocat', scmToken: token, scmRefresh: '', scmExpiry: 0 }),
      );
      const repoOf = (name: string, uid: number) =>
        newRepo({ namespace: 'octocat', name, uid: String(uid), userId: owner.id, active: true });
      repo = await store().repos.create(repoOf('app', app.id));
      other = await store().repos.create(repoOf('lib', lib.id));
    });
    afterAll(async () => {
      for (const s of stores) await s.close();
      await database.drop();
      await github.close();
    });

    it('runs a job missed for days once, on one of two servers looking every 50 ms, and moves it to its next run', async () => {
      const missed = Date.now() - 3 * DAY;
      const job = await store().crons.create(
        newCron(repo.id, { expr: '@daily', next: missed, target: 'qa' }),
      );
      const running = stores.map((s) => scheduler(s, 50));
      for (const s of running) s.start();
      try {
        await expect.poll(() => cronBuilds(repo), { timeout: 5000 }).toHaveLength(1);
        // Several more looks by both servers: nothing is due any more.
        await new Promise((resolve) => setTimeout(resolve, 400));
      } finally {
        await Promise.all(running.map((s) => s.stop()));
      }
      const builds = await cronBuilds(repo);
      expect(builds).toHaveLength(1);
      expect(builds[0]).toMatchObject({
        cron: job.name,
        trigger: '@cron',
        after: sha,
        target: 'main',
        deployTo: 'qa',
        sender: 'octocat',
        status: 'pending',
      });
      const moved = (await store().crons.find(job.id)) as Cron;
      expect(moved.prev).toBe(missed);
      expect(moved.next).toBeGreaterThan(Date.now());
      expect(moved.next - Date.now()).toBeLessThanOrEqual(DAY);
      expect(moved.version).toBe(2);
    });

    it('creates one build per due job when two servers look at the same moment', async () => {
      const due = Date.now() - 1000;
      const jobs = await Promise.all(
        [repo, repo, other, other, repo].map((r) =>
          store().crons.create(newCron(r.id, { expr: '@hourly', next: due })),
        ),
      );
      const before = (await cronBuilds(repo)).length + (await cronBuilds(other)).length;
      const [a, b] = stores.map((s) => scheduler(s));
      const built = await Promise.all([a?.runDue(), b?.runDue()]);
      expect((built[0] ?? 0) + (built[1] ?? 0)).toBe(jobs.length);
      const after = (await cronBuilds(repo)).length + (await cronBuilds(other)).length;
      expect(after - before).toBe(jobs.length);
      for (const job of jobs) expect((await store().crons.find(job.id))?.version).toBe(2);
    });

    it('never runs a disabled job, builds nothing for a disabled repository, and moves on past a missing branch', async () => {
      const due = Date.now() - 1000;
      const disabled = await store().crons.create(newCron(repo.id, { next: due, disabled: true }));
      const inactive = await store().repos.create(
        newRepo({ namespace: 'octocat', name: 'gone', uid: '999', userId: repo.userId, active: false }),
      );
      const ofInactive = await store().crons.create(newCron(inactive.id, { expr: '@hourly', next: due }));
      const noBranch = await store().crons.create(
        newCron(repo.id, { expr: '@hourly', next: due, branch: 'nope' }),
      );
      const before = (await cronBuilds(repo)).length;
      expect(await scheduler(store()).runDue()).toBe(0);
      expect(await cronBuilds(repo)).toHaveLength(before);
      expect(await cronBuilds(inactive)).toHaveLength(0);
      expect(await store().crons.find(disabled.id)).toMatchObject({ next: due, version: 1 });
      // Not retried at every look: the job waits for its next time.
      for (const job of [ofInactive, noBranch]) {
        expect((await store().crons.find(job.id))?.next).toBeGreaterThan(Date.now());
      }
    });
  });
}
