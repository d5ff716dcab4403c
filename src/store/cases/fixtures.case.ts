/* Test data for the store contract suite, and the per-suite store lifecycle. */
import { afterAll, beforeAll } from 'vitest';
import type { NewBuild, NewStageWithSteps } from '../../core/build.js';
import type { NewCron } from '../../core/cron.js';
import type { NewRepo } from '../../core/repo.js';
import type { RunnerRegistration } from '../../core/runner.js';
import type { Stage } from '../../core/stage.js';
import type { NewSecret, SecretScope } from '../../core/secret.js';
import type { Store } from '../../core/store.js';
import type { NewUser } from '../../core/user.js';

/**
 * Opens a store on a fresh, empty database; `dispose` closes it and drops the database. `another`, where the dialect allows several servers, opens one
 * more store on the same database (a second server), which the caller closes.
 */
export type OpenFreshStore = () => Promise<{
  store: Store;
  dispose(): Promise<void>;
  another?: () => Promise<Store>;
}>;

/** One fresh store for the enclosing describe block; the returned function gives it to the tests. */
export function useStore(open: OpenFreshStore): () => Store {
  const opened = useOpenedStore(open);
  return () => opened().store;
}

/** As useStore, with what `open` answered besides the store (`another`). */
export function useOpenedStore(open: OpenFreshStore): () => Awaited<ReturnType<OpenFreshStore>> {
  let opened: Awaited<ReturnType<OpenFreshStore>> | undefined;
  beforeAll(async () => {
    opened = await open();
  });
  afterAll(async () => {
    await opened?.dispose();
  });
  return () => {
    if (opened === undefined) throw new Error('the store is not open');
    return opened;
  };
}

let sequence = 0;
/** A name no other fixture of this process has used. */
export function unique(prefix: string): string {
  sequence += 1;
  return `${prefix}${sequence}`;
}

export function newUser(overrides: Partial<NewUser> = {}): NewUser {
  const login = overrides.login ?? unique('user');
  return {
    login,
    email: `${login}@example.com`,
    avatar: `https://avatars.example.com/${login}.png`,
    machine: false,
    admin: false,
    active: true,
    tokenHash: unique('token-hash-'),
    scmToken: 'gho_scm',
    scmRefresh: 'ghr_refresh',
    scmExpiry: 1_900_000_000_000,
    lastLogin: 0,
    scmUid: '',
    ...overrides,
  };
}

export function newRepo(overrides: Partial<NewRepo> = {}): NewRepo {
  const namespace = overrides.namespace ?? 'octocat';
  const name = overrides.name ?? unique('repo');
  return {
    uid: unique('uid-'),
    userId: 0,
    namespace,
    namespaceUid: '',
    name,
    slug: `${namespace}/${name}`,
    scm: 'scmc',
    cloneUrl: `https://github.com/${namespace}/${name}.git`,
    cloneUrlSsh: `git@github.com:${namespace}/${name}.git`,
    link: `https://github.com/${namespace}/${name}`,
    defaultBranch: 'main',
    private: false,
    visibility: 'public',
    active: true,
    configPath: '',
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
    hookSecret: 'hook-secret',
    synced: 0,
    ...overrides,
  };
}

export function newBuild(repoId: number, overrides: Partial<NewBuild> = {}): NewBuild {
  return {
    repoId,
    parent: 0,
    status: 'pending',
    error: '',
    config: 'kind: pipeline\nname: default\nsteps:\n- name: test\n  image: alpine\n',
    event: 'push',
    action: '',
    trigger: '@hook',
    link: 'https://github.com/octocat/hello/commit/abc',
    title: '',
    message: 'Fix the flux capacitor ✨',
    before: '0000000',
    after: 'abc1234',
    ref: 'refs/heads/main',
    sourceRepo: 'octocat/hello',
    source: 'main',
    target: 'main',
    authorLogin: 'octocat',
    authorName: 'The Octocat',
    authorEmail: 'octocat@example.com',
    authorAvatar: '',
    sender: 'octocat',
    params: {},
    cron: '',
    deployTo: '',
    deployId: 0,
    debug: false,
    started: 0,
    finished: 0,
    ...overrides,
  };
}

/** A stage with `steps` steps named after their numbers. */
export function newStage(
  number: number,
  steps = 2,
  overrides: Partial<NewStageWithSteps['stage']> = {},
): NewStageWithSteps {
  return {
    stage: {
      number,
      name: `stage-${number}`,
      kind: 'pipeline',
      type: 'docker',
      status: 'pending',
      error: '',
      errIgnore: false,
      exitCode: 0,
      machine: '',
      os: 'linux',
      arch: 'amd64',
      variant: '',
      kernel: '',
      limit: 0,
      started: 0,
      stopped: 0,
      heartbeat: 0,
      onSuccess: true,
      onFailure: false,
      dependsOn: [],
      labels: {},
      ...overrides,
    },
    steps: Array.from({ length: steps }, (_, i) => ({
      number: i + 1,
      name: `step-${i + 1}`,
      status: 'pending' as const,
      error: '',
      errIgnore: false,
      exitCode: 0,
      image: 'alpine:3',
      detached: false,
      dependsOn: i === 0 ? [] : [`step-${i}`],
      started: 0,
      stopped: 0,
    })),
  };
}

export function newSecret(scope: SecretScope, overrides: Partial<NewSecret> = {}): NewSecret {
  return {
    scope,
    name: unique('secret_'),
    data: 'p4ssw0rd',
    pullRequest: false,
    pullRequestPush: false,
    namespaceUid: '',
    environment: '',
    ...overrides,
  };
}

export function newCron(repoId: number, overrides: Partial<NewCron> = {}): NewCron {
  return {
    repoId,
    name: unique('nightly-'),
    expr: '0 0 * * *',
    next: 1_800_000_000_000,
    prev: 0,
    event: 'push',
    branch: 'main',
    target: '',
    disabled: false,
    ...overrides,
  };
}

export function runnerRegistration(overrides: Partial<RunnerRegistration> = {}): RunnerRegistration {
  return {
    name: unique('runner-'),
    kind: 'docker',
    type: 'docker',
    labels: { region: 'eu' },
    capacity: 2,
    maxProcs: 0,
    os: 'linux',
    arch: 'amd64',
    version: '0.1.0',
    lastSeen: Date.now(),
    ...overrides,
  };
}

/** A stage as the store returns it (id, version, times), for tests that need records without a database. */
export function storedStage(id: number, fields: Partial<Stage> = {}): Stage {
  return {
    ...newStage(id, 0).stage,
    id,
    repoId: 1,
    buildId: 1,
    created: 0,
    updated: 0,
    version: 1,
    ...fields,
  };
}
