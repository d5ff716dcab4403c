/*
 * The API fuzzing target's world: the API tests' harness (a real svc on SQLite or SVC_FUZZ_DATABASE, the real GitHub
 * adapter on the GitHub double) with an svc administrator, a second user, an enabled repository
 * with builds of two stages, steps and a stored log, a cron job and secrets. Inputs may change
 * any of it — later inputs see the changed world — but `restore` puts back what they need to get
 * past the guard and reach the handlers, cheaply enough to run after every input that may have
 * changed something.
 */
import type { Build } from '../../../src/core/build.js';
import type { Repo } from '../../../src/core/repo.js';
import type { User } from '../../../src/core/user.js';
import { call, enable, loginAs, tokenOf, type BrowserSession } from '../../api/client.js';
import { startHarness, type Harness } from '../../api/harness.js';
import { fuzzDialect } from './dialect.js';
import { BUILD_AND_TEST } from '../../api/pipelines.js';

const PIPELINES = BUILD_AND_TEST;

/** The fixture's names for each path parameter (the builds' numbers change as inputs delete builds). */
export type Known = Record<string, string[]>;

/** The running world and the credentials of its callers. */
export interface ApiFixture {
  readonly harness: Harness;
  /** Names the fixture holds, which path parameters pick often so that inputs reach the handlers. */
  readonly known: Readonly<Known>;
  /** The svc administrator's API token (`octocat`, also the repository's admin at GitHub). */
  readonly adminToken: string;
  /** A logged-in user who is nobody special (`hubot`). */
  readonly userToken: string;
  /** The administrator's browser session, for cookie-and-CSRF callers. */
  readonly session: BrowserSession;
  /**
   * Puts back the administrator, the other user, the enabled repository, a build with a log, the
   * cron job and the secrets.
   */
  restore(): Promise<void>;
  close(): Promise<void>;
}

/** Starts the harness and seeds it (about a second). */
export async function startApiFixture(): Promise<ApiFixture> {
  const harness = await startHarness({ dialect: fuzzDialect() });
  const { github, store } = harness;
  github.addUser({ login: 'octocat' });
  github.addUser({ login: 'hubot' });
  github.addRepo({ owner: 'octocat', name: 'app', private: true, admins: ['octocat'] });
  const session = await loginAs(harness, 'octocat');
  const adminToken = await tokenOf(harness, session);
  const userToken = await tokenOf(harness, await loginAs(harness, 'hubot'));
  const octocat = await must(store.users.findLogin('octocat'), 'octocat');
  await store.users.update({ ...octocat, admin: true });
  await enable(harness, session, 'octocat/app');
  const repo = await must(store.repos.findSlug('octocat', 'app'), 'octocat/app');
  const known: Known = {
    owner: ['octocat'],
    name: ['app', 'password'],
    namespace: ['octocat'],
    number: [String(await pushBuild(harness, repo.id)), String(await pushBuild(harness, repo.id))],
    stage: ['1', '2'],
    step: ['1'],
    login: ['octocat', 'hubot'],
    cron: ['nightly'],
    secret: ['password'],
    branch: ['main'],
    pull: ['1'],
    target: ['production'],
  };
  const users = [
    await must(store.users.findLogin('octocat'), 'octocat'),
    await must(store.users.findLogin('hubot'), 'hubot'),
  ];
  const api = (path: string, body: unknown): Promise<void> =>
    call(harness, path, { method: 'POST', token: adminToken, body }).then((answer) => {
      if (answer.status !== 200) throw new Error(`seeding ${path} answered ${answer.status}: ${answer.text}`);
    });
  await api('/api/repos/octocat/app/cron', { name: 'nightly', expr: '@daily' });
  await api('/api/repos/octocat/app/secrets', { name: 'password', data: 'hunter2' });
  await api('/api/secrets/octocat', { name: 'password', data: 'hunter2' });
  const repoSecret = { kind: 'repo', repoId: repo.id } as const;
  const orgSecret = { kind: 'namespace', namespace: 'octocat' } as const;
  const cron = await must(store.crons.findName(repo.id, 'nightly'), 'the cron job');
  const secrets = [
    await must(store.secrets.findName(repoSecret, 'password'), 'the repository secret'),
    await must(store.secrets.findName(orgSecret, 'password'), 'the organization secret'),
  ];

  return {
    harness,
    known,
    adminToken,
    userToken,
    session,
    async restore() {
      for (const user of users) await restoreUser(harness, user);
      // Its settings too: a changed config_path, say, would make the next push build nothing.
      const current = await must(store.repos.findSlug('octocat', 'app'), 'octocat/app');
      if (JSON.stringify(settingsOf(current)) !== JSON.stringify(settingsOf(repo))) {
        await store.repos.update({ ...repo, version: current.version, counter: current.counter });
      }
      // Deleted ones come back (with new ids: routes name them by name).
      if ((await store.crons.findName(repo.id, cron.name)) === undefined) {
        const { id: _id, created: _created, updated: _updated, version: _version, ...fields } = cron;
        await store.crons.create(fields);
      }
      for (const secret of secrets) {
        if ((await store.secrets.findName(secret.scope, secret.name)) === undefined) {
          const { id: _id, created: _created, updated: _updated, ...fields } = secret;
          await store.secrets.create(fields);
        }
      }
      // Purges and deletions take builds away; the routes of builds need one to act on.
      const newest = Number(known.number?.[0]);
      if ((await store.builds.findNumber(repo.id, newest)) === undefined)
        known.number = [String(await pushBuild(harness, repo.id))];
    },
    close: () => harness.close(),
  };
}

/** A repository without what changes on its own as builds come (counter, version, times). */
function settingsOf(repo: Repo): Partial<Repo> {
  const { version: _version, counter: _counter, updated: _updated, synced: _synced, ...settings } = repo;
  return settings;
}

/** The user as seeded again: same id (the repository and sessions point at it), token and rights. */
async function restoreUser(harness: Harness, seeded: User): Promise<void> {
  const { users } = harness.store;
  const current = await users.find(seeded.id);
  if (current === undefined) {
    // Deleted (the administrator may delete the other user): a new row, which gets a new id.
    const { id: _id, created: _created, updated: _updated, ...fields } = seeded;
    const again = await users.create(fields);
    Object.assign(seeded, { id: again.id });
    return;
  }
  if (
    current.tokenHash !== seeded.tokenHash ||
    current.admin !== seeded.admin ||
    current.active !== seeded.active ||
    current.login !== seeded.login
  ) {
    await users.update({
      ...current,
      tokenHash: seeded.tokenHash,
      admin: seeded.admin,
      active: seeded.active,
      login: seeded.login,
    });
  }
}

/**
 * Steps for the two stages of `build`: a finished one with a stored log and a running one (the
 * pushes create stages, and runners would create steps).
 */
async function seedSteps(harness: Harness, build: Build): Promise<void> {
  const { store } = harness;
  const stages = await store.stages.list(build.id);
  const [first, second] = stages;
  if (first === undefined || second === undefined)
    throw new Error(`build ${build.number} has not two stages: ${JSON.stringify({ build, stages })}`);
  const step = { errIgnore: false, exitCode: 0, image: 'golang', detached: false, dependsOn: [], error: '' };
  const finished = await store.steps.create({
    ...step,
    stageId: first.id,
    number: 1,
    name: 'compile',
    status: 'success',
    started: 1_000,
    stopped: 2_000,
  });
  await store.logs.create(finished.id, [
    { pos: 0, out: '+ go build\n', time: 0 },
    { pos: 1, out: 'ok\n', time: 1 },
  ]);
  await store.steps.create({
    ...step,
    stageId: second.id,
    number: 1,
    name: 'unit',
    status: 'running',
    started: 3_000,
    stopped: 0,
  });
}

/** A new build of two stages with steps and a log, as a push makes it; returns its number. */
async function pushBuild(harness: Harness, repoId: number): Promise<number> {
  const { github, store } = harness;
  pushes += 1;
  const sha = github.commit(
    'octocat/app',
    'main',
    { '.drone.yml': PIPELINES, 'n.txt': String(pushes) },
    `commit ${pushes}`,
  );
  // Tens of thousands of inputs use up the double's 5,000 calls an hour (the routes then answer the
  // provider's refusal, which is worth fuzzing too), but the push must read the pipeline file: a
  // window that ended at 1970 starts a fresh one.
  github.exhaustRateLimit(new Date(0));
  // Signed with the stored secret: re-enabling and repairing give the hook at the double a new one.
  const repo = await must(store.repos.find(repoId), 'octocat/app');
  const status = await github.push('octocat/app', 'main', `${harness.url}/hook`, { secret: repo.hookSecret });
  if (status !== 200) throw new Error(`a push answered ${status}`);
  const [build] = await store.builds.list(repoId, { page: 1, perPage: 1 });
  if (build?.after !== sha) {
    const newest =
      build === undefined
        ? 'none'
        : `${build.number} (${build.event}, ${build.status} ${build.error}, ${build.after})`;
    throw new Error(`the push of ${sha} made no build; the newest is ${newest}`);
  }
  await seedSteps(harness, build);
  return build.number;
}

let pushes = 0;

async function must<T>(value: Promise<T | undefined>, what: string): Promise<T> {
  const found = await value;
  if (found === undefined) throw new Error(`${what} is missing from the fixture`);
  return found;
}
