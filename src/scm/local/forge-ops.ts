import { ConflictError, InvalidInputError } from '../../core/errors.js';
import type { ForgeAccount, ForgeRepo } from './forge-state.js';
import { deliverPush, type PushPayload } from './hooks.js';
import { hashPassword } from './passwords.js';
import { commitFiles } from './git-repo.js';
import type { LocalGitProvider } from './provider.js';

/**
 * What the built-in provider does besides the ScmProvider interface: make accounts and
 * repositories, and raise the webhooks of a push that landed.
 */

/** Account names: what git URLs and svc's pages can carry as they are. */
const LOGIN = /^[A-Za-z0-9](?:[A-Za-z0-9_-]{0,38})$/;
/** Repository names: no leading dot, no `.git` suffix (the URL adds it). */
const REPO_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}$/;
export const MIN_PASSWORD = 8;

export async function createAccount(
  provider: LocalGitProvider,
  fields: { login: string; email?: string; password: string; admin: boolean },
): Promise<ForgeAccount> {
  if (!LOGIN.test(fields.login))
    throw new InvalidInputError(
      `login: "${fields.login}" is not an account name svc accepts (letters, digits, - and _, up to 39, starting with a letter or digit)`,
    );
  if (fields.password.length < MIN_PASSWORD)
    throw new InvalidInputError(`password: at least ${MIN_PASSWORD} characters`);
  if (provider.state.account(fields.login) !== undefined)
    throw new ConflictError(`an account named ${fields.login} exists already`);
  return provider.state.addAccount({
    login: fields.login,
    email: fields.email ?? '',
    passwordHash: await hashPassword(fields.password),
    admin: fields.admin,
  });
}

export async function setPassword(
  provider: LocalGitProvider,
  account: ForgeAccount,
  password: string,
): Promise<void> {
  if (password.length < MIN_PASSWORD)
    throw new InvalidInputError(`password: at least ${MIN_PASSWORD} characters`);
  provider.state.setPassword(account.id, await hashPassword(password));
}

/** Makes an empty repository of `owner` (HEAD on `main`). */
export async function createRepository(
  provider: LocalGitProvider,
  owner: ForgeAccount,
  fields: { name: string; private: boolean },
): Promise<ForgeRepo> {
  const name = fields.name.replace(/\.git$/, '');
  if (!REPO_NAME.test(name) || name.endsWith('.git'))
    throw new InvalidInputError(
      `name: "${fields.name}" is not a repository name svc accepts (letters, digits, ., - and _, up to 100, not starting with a dot)`,
    );
  if (provider.state.repo(owner.login, name) !== undefined)
    throw new ConflictError(`${owner.login}/${name} exists already`);
  const git = provider.repository({ owner: owner.login, name });
  if (!git.exists()) await git.init('main');
  return provider.state.addRepo({
    owner: owner.login,
    name,
    private: fields.private,
    defaultBranch: 'main',
    members: {},
  });
}

/**
 * Sends the webhooks of a push: one `push` event per ref it created or moved (branches and tags;
 * deletions too, which svc ignores). `before` and `after` are the repository's refs around it.
 */
export async function raisePushHooks(
  provider: LocalGitProvider,
  repo: ForgeRepo,
  sender: string,
  before: ReadonlyMap<string, string>,
  after: ReadonlyMap<string, string>,
  link: string,
): Promise<{ ref: string; statuses: number[] }[]> {
  const hooks = provider.state.hooks(repo.id);
  const git = provider.repository(repo);
  const zero = '0'.repeat(40);
  const changed = [...new Set([...before.keys(), ...after.keys()])].filter(
    (ref) => before.get(ref) !== after.get(ref),
  );
  const sent: { ref: string; statuses: number[] }[] = [];
  for (const ref of changed.sort()) {
    const next = after.get(ref) ?? zero;
    const commit = next === zero ? undefined : await git.commit(next);
    const payload: PushPayload = {
      ref,
      before: before.get(ref) ?? zero,
      after: next,
      repository: { id: repo.id, owner: repo.owner, name: repo.name },
      commit: {
        sha: commit?.sha ?? next,
        message: commit?.message ?? '',
        author_name: commit?.authorName ?? '',
        author_email: commit?.authorEmail ?? '',
      },
      sender,
      link,
    };
    sent.push({ ref, statuses: hooks.length === 0 ? [] : await deliverPush(hooks, payload) });
  }
  return sent;
}

/** The sample pipeline's files, for people without a repository at hand. */
export function samplePipeline(image: string): Record<string, string> {
  return {
    'README.md': '# hello\n\nA sample repository of svc’s built-in git provider.\n',
    '.drone.yml': [
      'kind: pipeline',
      'type: docker',
      'name: default',
      '',
      'steps:',
      '- name: greet',
      `  image: ${image}`,
      '  commands:',
      '  - cat README.md',
      '  - echo "hello from svc, build $DRONE_BUILD_NUMBER of $DRONE_REPO"',
      '',
    ].join('\n'),
  };
}

/** Commits the sample pipeline on the default branch as `account`, and builds it (its push's webhooks). */
export async function addSamplePipeline(
  provider: LocalGitProvider,
  repo: ForgeRepo,
  account: ForgeAccount,
  image: string,
  link: string,
): Promise<string> {
  const git = provider.repository(repo);
  const before = await git.refs();
  const sha = await commitFiles(git, repo.defaultBranch, samplePipeline(image), 'Add a sample pipeline', {
    name: account.login,
    email: account.email || `${account.login}@localhost`,
  });
  await raisePushHooks(provider, repo, account.login, before, await git.refs(), link);
  return sha;
}
