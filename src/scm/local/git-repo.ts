import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';

/**
 * The built-in provider's repositories on disk: bare repositories read and made with the real `git`
 * (as `git http-backend` serves them). Every name that reaches a command is checked first and
 * passed after `--` or as `rev:path`, never where git would read it as an option.
 */

/** git without the machine's or the user's configuration, and never asking for anything. */
export const GIT_ENV: Readonly<Record<string, string>> = {
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_TERMINAL_PROMPT: '0',
};

const MAX_OUTPUT = 64 * 1024 * 1024;

/** Runs git (in `gitDir` when given), with `env` over GIT_ENV and `input` on its stdin; its output. */
function git(
  args: readonly string[],
  options: { gitDir?: string; env?: Record<string, string>; input?: string } = {},
): Promise<string> {
  const full = options.gitDir === undefined ? [...args] : ['--git-dir', options.gitDir, ...args];
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      full,
      {
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...GIT_ENV, ...options.env },
        maxBuffer: MAX_OUTPUT,
        encoding: 'utf8',
      },
      (error, stdout, stderr) => {
        if (error === null) resolve(stdout);
        else reject(new Error(`git ${args[0] ?? ''}: ${stderr.trim() || error.message}`, { cause: error }));
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/** A branch name git accepts and that cannot be read as an option or a range. */
export function safeBranch(name: string): boolean {
  return (
    /^[A-Za-z0-9._/-]{1,200}$/.test(name) &&
    !name.startsWith('-') &&
    !name.startsWith('/') &&
    !name.endsWith('/') &&
    !name.endsWith('.lock') &&
    !name.includes('..') &&
    !name.includes('//')
  );
}

const SHA = /^[0-9a-f]{40}$/;

export class GitRepository {
  constructor(readonly path: string) {}

  exists(): boolean {
    return existsSync(this.path);
  }

  /** Makes the bare repository, HEAD on `branch`. */
  async init(branch: string): Promise<void> {
    if (!safeBranch(branch)) throw new Error(`${branch} is not a branch name svc accepts`);
    await git(['init', '--bare', '--quiet', `--initial-branch=${branch}`, '--', this.path]);
  }

  /** Every ref and the object it points at: what a push changes. */
  async refs(): Promise<Map<string, string>> {
    const out = await git(['for-each-ref', '--format=%(objectname) %(refname)'], { gitDir: this.path });
    const refs = new Map<string, string>();
    for (const line of out.split('\n')) {
      const space = line.indexOf(' ');
      if (space > 0) refs.set(line.slice(space + 1), line.slice(0, space));
    }
    return refs;
  }

  /**
   * Branches and tags, newest first (at most `limit`), each with the commit it names (an annotated
   * tag peeled) and that commit's subject line.
   */
  async namedCommits(limit: number): Promise<{ ref: string; sha: string; subject: string }[]> {
    const out = await git(
      [
        'for-each-ref',
        '--sort=-creatordate',
        `--count=${limit}`,
        '--format=%(refname)%00%(objectname)%00%(*objectname)%00%(subject)%00%(*subject)',
        'refs/heads',
        'refs/tags',
      ],
      { gitDir: this.path },
    );
    return out
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => {
        const [ref = '', object = '', peeled = '', subject = '', peeledSubject = ''] = line.split('\0');
        return peeled === '' ? { ref, sha: object, subject } : { ref, sha: peeled, subject: peeledSubject };
      });
  }

  /** The commit a branch points at; undefined for a missing branch. */
  async branchHead(branch: string): Promise<string | undefined> {
    if (!safeBranch(branch)) return undefined;
    return this.#resolve(`refs/heads/${branch}^{commit}`);
  }

  /** The commit an object (a commit, or an annotated tag) resolves to; undefined when there is none. */
  async commitOf(sha: string): Promise<string | undefined> {
    return SHA.test(sha) ? this.#resolve(`${sha}^{commit}`) : undefined;
  }

  async #resolve(rev: string): Promise<string | undefined> {
    try {
      return (
        await git(['rev-parse', '--verify', '--quiet', '--end-of-options', rev], { gitDir: this.path })
      ).trim();
    } catch {
      return undefined;
    }
  }

  /** A commit's author and message; undefined when the repository has no such commit. */
  async commit(
    sha: string,
  ): Promise<{ sha: string; authorName: string; authorEmail: string; message: string } | undefined> {
    const commit = await this.commitOf(sha);
    if (commit === undefined) return undefined;
    const out = await git(['log', '-1', '--format=%H%x00%an%x00%ae%x00%B', commit, '--'], {
      gitDir: this.path,
    });
    const [full = commit, authorName = '', authorEmail = '', message = ''] = out.split('\0');
    return { sha: full, authorName, authorEmail, message: message.replace(/\n+$/, '') };
  }

  /** The file at `path` in the commit; undefined when it is not there (or is not a file). */
  async file(commit: string, path: string): Promise<string | undefined> {
    const resolved = await this.commitOf(commit);
    const clean = path.replace(/^\/+/, '');
    if (resolved === undefined || clean === '' || clean.split('/').includes('..')) return undefined;
    try {
      const type = (await git(['cat-file', '-t', `${resolved}:${clean}`], { gitDir: this.path })).trim();
      if (type !== 'blob') return undefined;
      return await git(['cat-file', 'blob', `${resolved}:${clean}`], { gitDir: this.path });
    } catch {
      return undefined;
    }
  }

  /**
   * The files that differ between two commits (a rename's both names); undefined when either is
   * not in the repository (a forced push's earlier commit may be gone).
   */
  async changedFiles(before: string, after: string): Promise<string[] | undefined> {
    const [from, to] = await Promise.all([this.commitOf(before), this.commitOf(after)]);
    if (from === undefined || to === undefined) return undefined;
    const out = await git(['diff', '--name-only', '-z', '--no-renames', from, to, '--'], {
      gitDir: this.path,
    });
    return out
      .split('\0')
      .filter((name) => name !== '')
      .sort();
  }

  /** The branch HEAD names (the default branch). */
  async defaultBranch(): Promise<string> {
    const out = await git(['symbolic-ref', '--quiet', '--short', 'HEAD'], { gitDir: this.path });
    return out.trim();
  }
}

/**
 * Commits `files` on top of `branch` (or as its first commit) in a bare repository with git's
 * plumbing — no work tree — and moves the branch; returns the new commit.
 */
export async function commitFiles(
  repo: GitRepository,
  branch: string,
  files: Readonly<Record<string, string>>,
  message: string,
  author: { name: string; email: string },
): Promise<string> {
  if (!safeBranch(branch)) throw new Error(`${branch} is not a branch name svc accepts`);
  const index = `${repo.path}/svc-index-${process.pid}-${Date.now()}`;
  const env = {
    GIT_INDEX_FILE: index,
    GIT_AUTHOR_NAME: author.name,
    GIT_AUTHOR_EMAIL: author.email,
    GIT_COMMITTER_NAME: author.name,
    GIT_COMMITTER_EMAIL: author.email,
  };
  const run = (args: string[], input?: string) =>
    git(args, { gitDir: repo.path, env, ...(input === undefined ? {} : { input }) });
  try {
    const parent = await repo.branchHead(branch);
    if (parent !== undefined) await run(['read-tree', parent]);
    for (const [path, content] of Object.entries(files)) {
      const blob = (await run(['hash-object', '-w', '--stdin'], content)).trim();
      await run(['update-index', '--add', '--cacheinfo', `100644,${blob},${path}`]);
    }
    const tree = (await run(['write-tree'])).trim();
    const commit = (
      await run(['commit-tree', tree, ...(parent === undefined ? [] : ['-p', parent]), '-m', message])
    ).trim();
    await run(['update-ref', `refs/heads/${branch}`, commit, ...(parent === undefined ? [] : [parent])]);
    return commit;
  } finally {
    await rm(index, { force: true });
  }
}
