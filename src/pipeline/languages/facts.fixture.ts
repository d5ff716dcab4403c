import type { FactsBuild, FactsRepo } from './facts.js';

/** A push to main of octo/hello, as the language tests see it. */
export const PUSH_BUILD: FactsBuild = {
  event: 'push',
  action: '',
  cron: '',
  deployTo: '',
  link: 'https://github.com/octo/hello/commit/7fd1a60b01f91b314f59955a4e4d4e80d8edf11d',
  source: 'main',
  target: 'main',
  before: '553c2077f0edc3d5dc5d17262f6aa498e69d6f8e',
  after: '7fd1a60b01f91b314f59955a4e4d4e80d8edf11d',
  ref: 'refs/heads/main',
  title: '',
  message: 'Update README.md',
  sourceRepo: '',
  authorLogin: 'octocat',
  authorName: 'The Octocat',
  authorEmail: 'octocat@github.com',
  authorAvatar: 'https://avatars.githubusercontent.com/u/583231',
  sender: 'octocat',
  debug: false,
  params: {},
};

export const REPO: FactsRepo = {
  uid: '1296269',
  name: 'hello',
  namespace: 'octo',
  slug: 'octo/hello',
  cloneUrl: 'https://github.com/octo/hello.git',
  cloneUrlSsh: 'git@github.com:octo/hello.git',
  link: 'https://github.com/octo/hello',
  defaultBranch: 'main',
  configPath: '.drone.jsonnet',
  private: false,
  visibility: 'public',
  active: true,
  trusted: false,
  protected: false,
  ignoreForks: false,
  ignorePullRequests: false,
};
