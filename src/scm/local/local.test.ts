/**
 * The built-in provider held to the ScmProvider contract like the six others. Its "double" is the
 * real thing: the provider's own records and bare repositories in a temporary folder, commits made
 * with the real `git`, and webhooks sent by the provider's own delivery code.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { providerContract, type ScmTestDouble } from '../provider.case.js';
import { deliverPush } from './hooks.js';
import { hashPassword } from './passwords.js';
import { GIT_ENV } from './git-repo.js';
import { LocalGitProvider } from './provider.js';

const PASSWORD = 'correct horse battery staple';

function git(gitDir: string, args: string[], env: Record<string, string> = {}, input?: string): string {
  return execFileSync('git', ['--git-dir', gitDir, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...GIT_ENV, ...env },
    ...(input === undefined ? {} : { input }),
  }).trim();
}

async function startLocalDouble(): Promise<ScmTestDouble> {
  const root = mkdtempSync(join(tmpdir(), 'svc-local-git-'));
  const passwordHash = await hashPassword(PASSWORD);
  const base = {
    root,
    publicUrl: 'http://ci.local:8080',
    gitAlwaysAuth: false,
    gitUsername: null,
    gitPassword: null,
  };
  const main = new LocalGitProvider(base);
  const repoOf = (fullName: string) => {
    const [owner = '', name = ''] = fullName.split('/');
    const repo = main.state.repo(owner, name);
    if (repo === undefined) throw new Error(`no repository ${fullName}`);
    return repo;
  };
  return {
    provider: (overrides = {}) => new LocalGitProvider({ ...base, ...overrides, state: main.state }),
    unreachableProvider: () => main,
    addUser(login, email) {
      const account = main.state.addAccount({ login, email, passwordHash, admin: false });
      return { token: main.state.issueToken(account.id), refresh: '', expiry: 0 };
    },
    addRepo({ owner, name, private: hidden = false, admins = [], writers = [], readers = [] }) {
      const path = main.repository({ owner, name }).path;
      execFileSync('git', ['init', '--bare', '--quiet', '--initial-branch=main', '--', path], {
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...GIT_ENV },
      });
      const members: Record<string, 'read' | 'write' | 'admin'> = {};
      for (const login of readers) members[login] = 'read';
      for (const login of writers) members[login] = 'write';
      for (const login of admins) members[login] = 'admin';
      main.state.addRepo({ owner, name, private: hidden, defaultBranch: 'main', members });
    },
    commit(fullName, branch, files, message = 'change') {
      const repo = repoOf(fullName);
      const gitDir = main.repository(repo).path;
      const author = main.state.account(repo.owner);
      const index = join(root, `index-${process.pid}`);
      const env = {
        GIT_INDEX_FILE: index,
        GIT_AUTHOR_NAME: repo.owner,
        GIT_AUTHOR_EMAIL: author?.email ?? `${repo.owner}@example.com`,
        GIT_COMMITTER_NAME: repo.owner,
        GIT_COMMITTER_EMAIL: author?.email ?? `${repo.owner}@example.com`,
      };
      let parent = '';
      try {
        parent = git(gitDir, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`]);
      } catch {
        // A new branch starts from the default branch's head, or from nothing.
        try {
          parent = git(gitDir, ['rev-parse', '--verify', '--quiet', 'refs/heads/main']);
        } catch {
          parent = '';
        }
      }
      rmSync(index, { force: true });
      if (parent !== '') git(gitDir, ['read-tree', parent], env);
      for (const [path, content] of Object.entries(files)) {
        const blob = git(gitDir, ['hash-object', '-w', '--stdin'], env, content);
        git(gitDir, ['update-index', '--add', '--cacheinfo', `100644,${blob},${path}`], env);
      }
      const tree = git(gitDir, ['write-tree'], env);
      const sha = git(
        gitDir,
        ['commit-tree', tree, ...(parent === '' ? [] : ['-p', parent]), '-m', message],
        env,
      );
      git(gitDir, ['update-ref', `refs/heads/${branch}`, sha], env);
      return sha;
    },
    password: () => PASSWORD,
    hooks: (fullName) => [...main.state.hooks(repoOf(fullName).id)],
    statuses: (fullName, sha) =>
      main.state.statuses(repoOf(fullName).id, sha).map(({ state, context, description, targetUrl }) => ({
        state,
        context,
        description,
        targetUrl,
      })),
    expectedState: (state) => state,
    async sendPush(fullName, branch, url, secret) {
      const repo = repoOf(fullName);
      const gitRepo = main.repository(repo);
      const head = (await gitRepo.branchHead(branch)) ?? '';
      const commit = await gitRepo.commit(head);
      const hookSecret = secret ?? main.state.hooks(repo.id).find((hook) => hook.url === url)?.secret ?? '';
      const [status] = await deliverPush([{ url, secret: hookSecret }], {
        ref: `refs/heads/${branch}`,
        before: '0'.repeat(40),
        after: head,
        repository: { id: repo.id, owner: repo.owner, name: repo.name },
        commit: {
          sha: head,
          message: commit?.message ?? '',
          author_name: commit?.authorName ?? '',
          author_email: commit?.authorEmail ?? '',
        },
        sender: repo.owner,
        link: `http://ci.local:8080/${fullName}`,
      });
      return status ?? 0;
    },
    cloneHost: 'git.example.com',
    netrcLogin: (token) => ({
      login: main.state.accountOfToken(token.token)?.login ?? '',
      password: token.token,
    }),
    fail: () => undefined,
    faultHits: () => 0,
    close: () => {
      rmSync(root, { recursive: true, force: true });
      return Promise.resolve();
    },
  };
}

providerContract({
  name: 'built-in (local git)',
  gaps: {
    rateLimit: 'the built-in provider answers from this process: there is no rate limit',
    organizations: 'the built-in provider has accounts only, no organizations',
    network: 'the built-in provider is svc itself: nothing to retry, nothing unreachable',
  },
  start: startLocalDouble,
});
