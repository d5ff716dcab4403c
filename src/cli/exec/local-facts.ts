import { execFile } from 'node:child_process';
import { basename } from 'node:path';
import type { BuildFacts, RepoFacts, StageFacts } from '../../pipeline/index.js';
import type { ExecArgs } from './args.js';

/** What git says about the working copy, when it is one. */
interface GitFacts {
  branch: string;
  commit: string;
  message: string;
  authorName: string;
  authorEmail: string;
}

/** git's output, trimmed; '' when git fails (not a working copy, no commit yet, no git at all). */
function git(cwd: string, ...args: string[]): Promise<string> {
  return new Promise((resolve) => {
    execFile('git', args, { cwd }, (error, stdout) => resolve(error ? '' : stdout.trim()));
  });
}

/** Read once per folder: `svc exec` asks while linting and again while running (git's state holds). */
const factsByFolder = new Map<string, Promise<GitFacts>>();

/**
 * One `git log` for all the facts (a git process costs ~25 ms, and `svc exec` is measured against a
 * `docker run`): %D names the refs at HEAD, `HEAD -> main, origin/main` on a branch and no arrow when
 * detached. Nothing (''), as before, outside a working copy or before the first commit.
 * Asynchronous, so that `svc exec` reads and parses its file while git runs (`readGitFacts` early).
 */
export function readGitFacts(cwd: string): Promise<GitFacts> {
  const known = factsByFolder.get(cwd);
  if (known !== undefined) return known;
  const facts = git(cwd, 'log', '-1', '--format=%H%n%D%n%an%n%ae%n%s').then((text) => {
    const [commit = '', refs = '', authorName = '', authorEmail = '', message = ''] = text.split('\n');
    const branch = /^HEAD -> ([^,]+)/.exec(refs)?.[1] ?? '';
    return { branch, commit, message, authorName, authorEmail };
  });
  factsByFolder.set(cwd, facts);
  return facts;
}

/** The repository, build and stage a local run pretends to be, from the folder and its git state. */
export async function localFacts(
  cwd: string,
  args: Pick<ExecArgs, 'event' | 'branch'>,
  pipelineName: string,
  now: number,
) {
  const facts = await readGitFacts(cwd);
  const branch = args.branch ?? (facts.branch !== '' && facts.branch !== 'HEAD' ? facts.branch : 'main');
  const name = basename(cwd);
  const repo: RepoFacts = {
    slug: `local/${name}`,
    namespace: 'local',
    name,
    scm: 'git',
    cloneUrl: '',
    cloneUrlSsh: '',
    link: '',
    defaultBranch: branch,
    private: true,
    visibility: 'private',
  };
  const ref = args.event === 'tag' ? `refs/tags/${branch}` : `refs/heads/${branch}`;
  const build: BuildFacts = {
    number: 1,
    parent: 0,
    event: args.event,
    action: '',
    trigger: '@exec',
    link: '',
    title: '',
    message: facts.message,
    before: '',
    after: facts.commit,
    ref,
    source: branch,
    target: branch,
    authorLogin: facts.authorName,
    authorName: facts.authorName,
    authorEmail: facts.authorEmail,
    authorAvatar: '',
    params: {},
    cron: '',
    deployTo: '',
    deployId: 0,
    debug: false,
    created: now,
    started: now,
    finished: 0,
  };
  const stage: StageFacts = {
    name: pipelineName,
    number: 1,
    os: 'linux',
    arch: 'amd64',
    variant: '',
    machine: 'localhost',
    dependsOn: [],
    started: now,
    stopped: 0,
  };
  return { repo, build, stage };
}
