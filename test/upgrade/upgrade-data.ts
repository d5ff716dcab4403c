/*
 * The rows of the upgrade fixtures and of the backup rehearsals: what an older svc wrote (through
 * its own store: scripts/upgrade-fixtures.ts) and what this svc must read back after migrating or
 * restoring — users with provider tokens, a repository with its provider id, permissions, secrets
 * of a repository and of its organisation (encrypted with FIXTURE_SECRET_KEY), builds with stages,
 * steps and logs, a cron job and a runner token. Uses only store methods as old as schema 14.
 */
import type { Store } from '../../src/core/store.js';

/** SVC_DATABASE_SECRET of the fixtures: 32 bytes, as the setting's hex form gives them. */
export const FIXTURE_SECRET_KEY = Buffer.from('5f'.repeat(32), 'hex');
export const FIXTURE_SECRET_SETTING = '5f'.repeat(32);

const LOGIN = 'octocat';
const REPO = { namespace: 'octocat', name: 'hello-world', uid: '1296269' };

/** Writes the data set into an empty store. */
export async function writeUpgradeData(store: Store): Promise<void> {
  const user = await store.users.create({
    login: LOGIN,
    email: 'octocat@example.com',
    avatar: 'https://avatars.example.com/octocat.png',
    machine: false,
    admin: true,
    active: true,
    tokenHash: 'a'.repeat(64),
    scmToken: 'gho_fixture_provider_token',
    scmRefresh: 'ghr_fixture_refresh_token',
    scmExpiry: 1_900_000_000_000,
    lastLogin: 1_700_000_000_000,
    scmUid: '583231',
  });
  const repo = await store.repos.create({
    uid: REPO.uid,
    userId: user.id,
    namespace: REPO.namespace,
    namespaceUid: '583231',
    name: REPO.name,
    slug: `${REPO.namespace}/${REPO.name}`,
    scm: 'scmc',
    cloneUrl: 'https://github.com/octocat/hello-world.git',
    cloneUrlSsh: 'git@github.com:octocat/hello-world.git',
    link: 'https://github.com/octocat/hello-world',
    defaultBranch: 'main',
    private: true,
    visibility: 'private',
    active: true,
    configPath: '.drone.yml',
    trusted: false,
    protected: false,
    ignoreForks: false,
    ignorePullRequests: false,
    cancelPulls: false,
    cancelPush: false,
    cancelRunning: false,
    forkIdTokens: false,
    throttle: 0,
    approval: 'forks',
    signingKey: '',
    timeout: 60,
    hookSecret: 'fixture-hook-secret',
    synced: 1_700_000_000_000,
  });
  await store.perms.upsert({
    userId: user.id,
    repoId: repo.id,
    read: true,
    write: true,
    admin: true,
    synced: 1,
  });
  await store.secrets.create({
    scope: { kind: 'repo', repoId: repo.id },
    name: 'deploy_key',
    data: 'fixture repository secret ✓',
    pullRequest: false,
    pullRequestPush: false,
    namespaceUid: '',
    environment: '',
  });
  await store.secrets.create({
    scope: { kind: 'namespace', namespace: REPO.namespace },
    name: 'org_token',
    data: 'fixture organisation secret',
    pullRequest: true,
    pullRequestPush: false,
    namespaceUid: '583231',
    environment: '',
  });
  for (const [number, status] of [
    [1, 'success'],
    [2, 'failure'],
  ] as const) {
    const { build, stages } = await store.builds.create(newBuild(repo.id, number, status), [
      newStage(status),
    ]);
    await store.repos.setCounter(repo.id, number);
    const steps = await store.steps.list(stages[0]?.id ?? 0);
    for (const step of steps) {
      await store.logs.create(step.id, logLines(build.number, step.name));
    }
  }
  await store.crons.create({
    repoId: repo.id,
    name: 'nightly',
    expr: '0 2 * * *',
    next: 1_800_000_000_000,
    prev: 0,
    event: 'push',
    branch: 'main',
    target: '',
    disabled: false,
  });
  await store.runnerTokens.create({
    name: 'fixture-runner',
    hash: 'b'.repeat(64),
    labels: { pool: 'fixtures' },
  });
}

function newBuild(repoId: number, number: number, status: 'success' | 'failure') {
  return {
    repoId,
    parent: 0,
    status,
    error: '',
    config: 'kind: pipeline\nname: default\nsteps:\n- name: test\n  image: alpine\n',
    event: 'push',
    action: '',
    trigger: '@hook',
    link: `https://github.com/octocat/hello-world/commit/${number}`,
    title: '',
    message: `build ${number} ✨`,
    before: '0000000',
    after: `abc${number}`,
    ref: 'refs/heads/main',
    sourceRepo: 'octocat/hello-world',
    source: 'main',
    target: 'main',
    authorLogin: LOGIN,
    authorName: 'The Octocat',
    authorEmail: 'octocat@example.com',
    authorAvatar: '',
    sender: LOGIN,
    params: { FIXTURE: String(number) },
    cron: '',
    deployTo: '',
    deployId: 0,
    debug: false,
    started: 1_700_000_000_000 + number,
    finished: 1_700_000_060_000 + number,
  } as Parameters<Store['builds']['create']>[0];
}

function newStage(status: 'success' | 'failure'): Parameters<Store['builds']['create']>[1][number] {
  const step = (number: number, name: string) => ({
    number,
    name,
    status: number === 2 ? status : ('success' as const),
    error: '',
    errIgnore: false,
    exitCode: number === 2 && status === 'failure' ? 1 : 0,
    image: 'alpine:3',
    detached: false,
    dependsOn: number === 1 ? [] : ['clone'],
    started: 1_700_000_000_000,
    stopped: 1_700_000_030_000,
  });
  return {
    stage: {
      number: 1,
      name: 'default',
      kind: 'pipeline',
      type: 'docker',
      status,
      error: '',
      errIgnore: false,
      exitCode: status === 'failure' ? 1 : 0,
      machine: 'runner-1',
      os: 'linux',
      arch: 'amd64',
      variant: '',
      kernel: '',
      limit: 0,
      started: 1_700_000_000_000,
      stopped: 1_700_000_060_000,
      heartbeat: 0,
      onSuccess: true,
      onFailure: false,
      dependsOn: [],
      labels: {},
    },
    steps: [step(1, 'clone'), step(2, 'test')],
  };
}

function logLines(build: number, step: string) {
  return [0, 1, 2].map((pos) => ({ pos, out: `build ${build} ${step} line ${pos} ✓\n`, time: pos }));
}

/** What a store holds of the data set, as plain values: compared whole after an upgrade or a restore. */
export async function readUpgradeData(store: Store) {
  const user = await store.users.findLogin(LOGIN);
  const repo = await store.repos.findUid(REPO.uid);
  if (user === undefined || repo === undefined) return { user, repo };
  const builds = [];
  for (const number of [1, 2]) {
    const build = await store.builds.findNumber(repo.id, number);
    if (build === undefined) continue;
    const stages = await store.stages.listWithSteps(build.id);
    const logs: Record<string, string> = {};
    for (const step of stages.flatMap((s) => s.steps)) {
      logs[step.name] = ((await store.logs.find(step.id)) ?? []).map((line) => line.out).join('');
    }
    builds.push({
      number: build.number,
      status: build.status,
      message: build.message,
      params: build.params,
      stages: stages.map((s) => ({ name: s.name, status: s.status, steps: s.steps.map((x) => x.name) })),
      logs,
    });
  }
  const secret = await store.secrets.findName({ kind: 'repo', repoId: repo.id }, 'deploy_key');
  const orgSecret = await store.secrets.findName(
    { kind: 'namespace', namespace: REPO.namespace },
    'org_token',
  );
  const token = await store.runnerTokens.findName('fixture-runner');
  return {
    user: {
      login: user.login,
      admin: user.admin,
      scmUid: user.scmUid,
      scmToken: user.scmToken,
      scmRefresh: user.scmRefresh,
    },
    repo: {
      slug: repo.slug,
      uid: repo.uid,
      counter: repo.counter,
      hookSecret: repo.hookSecret,
      private: repo.private,
    },
    perm: await store.perms
      .find(user.id, repo.id)
      .then((p) => p && { read: p.read, write: p.write, admin: p.admin }),
    secrets: { deploy_key: secret?.data, org_token: orgSecret?.data, orgPullRequest: orgSecret?.pullRequest },
    builds,
    crons: (await store.crons.list(repo.id)).map((c) => ({ name: c.name, expr: c.expr, branch: c.branch })),
    runnerToken: token && { name: token.name, labels: token.labels },
  };
}

/** What readUpgradeData answers for the data set as written. */
export const EXPECTED_UPGRADE_DATA = {
  user: {
    login: LOGIN,
    admin: true,
    scmUid: '583231',
    scmToken: 'gho_fixture_provider_token',
    scmRefresh: 'ghr_fixture_refresh_token',
  },
  repo: {
    slug: 'octocat/hello-world',
    uid: REPO.uid,
    counter: 2,
    hookSecret: 'fixture-hook-secret',
    private: true,
  },
  perm: { read: true, write: true, admin: true },
  secrets: {
    deploy_key: 'fixture repository secret ✓',
    org_token: 'fixture organisation secret',
    orgPullRequest: true,
  },
  builds: [1, 2].map((number) => ({
    number,
    status: number === 1 ? 'success' : 'failure',
    message: `build ${number} ✨`,
    params: { FIXTURE: String(number) },
    stages: [{ name: 'default', status: number === 1 ? 'success' : 'failure', steps: ['clone', 'test'] }],
    logs: Object.fromEntries(
      ['clone', 'test'].map((step) => [
        step,
        [0, 1, 2].map((pos) => `build ${number} ${step} line ${pos} ✓\n`).join(''),
      ]),
    ),
  })),
  crons: [{ name: 'nightly', expr: '0 2 * * *', branch: 'main' }],
  runnerToken: { name: 'fixture-runner', labels: { pool: 'fixtures' } },
};
