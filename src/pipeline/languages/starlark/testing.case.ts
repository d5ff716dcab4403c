/**
 * Test helpers shared by the Starlark tests (the .case.ts suffix keeps this file out of dist/).
 */
import type { LanguageFacts, LanguageRequest } from '../types.js';

/** A push to main of octocat/hello-world, with every fact Drone gives a Starlark program. */
export const FACTS: LanguageFacts = {
  build: {
    event: 'push',
    action: '',
    environment: '',
    link: 'https://github.com/octocat/hello-world/compare/7fd1a60b01f9...553c2077f0ed',
    branch: 'main',
    source: 'main',
    before: '7fd1a60b01f91b314f59955a4e4d4e80d8edf11d',
    after: '553c2077f0edc3d5dc5d17262f6aa498e69d6f8e',
    target: 'main',
    ref: 'refs/heads/main',
    commit: '553c2077f0edc3d5dc5d17262f6aa498e69d6f8e',
    title: '',
    message: 'Update README.md',
    source_repo: '',
    author_login: 'octocat',
    author_name: 'The Octocat',
    author_email: 'octocat@github.com',
    author_avatar: 'https://avatars.githubusercontent.com/u/583231?v=4',
    sender: 'octocat',
    debug: true,
    cron: 'nightly',
  },
  repo: {
    uid: 1296269,
    name: 'hello-world',
    namespace: 'octocat',
    slug: 'octocat/hello-world',
    git_http_url: 'https://github.com/octocat/hello-world.git',
    git_ssh_url: 'git@github.com:octocat/hello-world.git',
    link: 'https://github.com/octocat/hello-world',
    branch: 'main',
    config: '.drone.star',
    private: false,
    visibility: 'public',
    active: true,
    trusted: false,
    protected: true,
    ignore_forks: false,
    ignore_pull_requests: true,
  },
  params: { TARGET: 'production', DRY_RUN: 'false' },
};

/** The repository's files and the paths read from it, in order. */
export interface Repository {
  readonly files: Readonly<Record<string, string>>;
  readonly reads: string[];
}

/** A request for `.drone.star` (or `path`) in a repository holding `files`. */
export function starlarkRequest(
  source: string,
  files: Record<string, string> = {},
  path = '.drone.star',
): LanguageRequest & { readonly repository: Repository } {
  const repository: Repository = { files, reads: [] };
  return {
    path,
    source,
    facts: FACTS,
    repository,
    read(file) {
      repository.reads.push(file);
      return Promise.resolve(files[file]);
    },
  };
}

/** Joins lines into a Starlark file (tests keep indentation readable this way). */
export function star(...lines: string[]): string {
  return lines.join('\n') + '\n';
}
