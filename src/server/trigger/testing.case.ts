import { pino } from 'pino';
import type { Repo } from '../../core/repo.js';
import type { ScmHookBuild } from '../../core/scm.js';
import type { Store } from '../../core/store.js';
import type { User } from '../../core/user.js';
import { createGitHubProvider } from '../../scm/github/index.js';
import { newRepo, newUser } from '../../store/cases/fixtures.case.js';
import { openStore } from '../../store/index.js';
import { startGitHubDouble, type GitHubDouble } from '../../../test/doubles/github/index.js';
import { testDialects, type TestDatabase } from '../../../test/support/databases.js';
import type { TriggerDeps } from './trigger.js';

/** A trigger's world for tests: octocat/app on the GitHub double, enabled by octocat, on SQLite. */
export interface TriggerFixture {
  github: GitHubDouble;
  store: Store;
  owner: User;
  repo: Repo;
  /** Everything a Trigger needs; the listener does nothing unless `listener` is given. */
  deps: TriggerDeps;
  close(): Promise<void>;
}

export async function triggerFixture(listener?: TriggerDeps['listener']): Promise<TriggerFixture> {
  const github = await startGitHubDouble();
  const { token } = github.addUser({ login: 'octocat' });
  const { id } = github.addRepo({ owner: 'octocat', name: 'app', admins: ['octocat'] });
  const [sqlite] = testDialects();
  if (sqlite === undefined) throw new Error('no SQLite');
  const database: TestDatabase = await sqlite.create();
  const store = await openStore({ datasource: database.datasource });
  const owner = await store.users.create(
    newUser({ login: 'octocat', scmToken: token, scmRefresh: '', scmExpiry: 0 }),
  );
  const repo = await store.repos.create(
    newRepo({ namespace: 'octocat', name: 'app', uid: String(id), userId: owner.id }),
  );
  const provider = githubProvider(github);
  const deps: TriggerDeps = {
    store,
    provider,
    queue: { wake: () => undefined },
    listener: listener ?? { buildUpdated: () => Promise.resolve() },
    system: { proto: 'https', host: 'ci.example.com', version: 'test' },
    logger: pino({ level: 'silent' }),
  };
  return {
    github,
    store,
    owner,
    repo,
    deps,
    async close() {
      await store.close();
      await database.drop();
      await github.close();
    },
  };
}

/** svc's GitHub provider, talking to the double. */
export function githubProvider(github: GitHubDouble): ReturnType<typeof createGitHubProvider> {
  return createGitHubProvider({
    clientId: github.clientId,
    clientSecret: github.clientSecret,
    scopes: [],
    server: github.url,
    apiUrl: github.apiUrl,
    skipVerify: false,
    gitAlwaysAuth: false,
    gitUsername: null,
    gitPassword: null,
  });
}

/** A push of `sha` to main of octocat/app by octocat, as a hook describes it. */
export function pushHook(sha: string, overrides: Partial<ScmHookBuild> = {}): ScmHookBuild {
  return {
    event: 'push',
    action: '',
    ref: 'refs/heads/main',
    before: '0'.repeat(40),
    after: sha,
    source: 'main',
    target: 'main',
    sourceRepo: 'octocat/app',
    fork: false,
    title: '',
    message: 'change',
    link: '',
    authorLogin: 'octocat',
    authorName: 'The Octocat',
    authorEmail: 'octocat@example.com',
    authorAvatar: '',
    sender: 'octocat',
    ...overrides,
  };
}
