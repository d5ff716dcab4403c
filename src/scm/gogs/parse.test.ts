import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ScmHookResult } from '../../core/scm.js';
import { parseHook } from './parse.js';

const SECRET = 'hook-secret';

/** A repository as Gogs' payloads carry it (no permissions). */
const repository = (fullName: string, id = 140) => ({
  id,
  owner: {
    id: 1,
    username: fullName.split('/')[0],
    login: fullName.split('/')[0],
    full_name: '',
    email: '',
    avatar_url: '',
  },
  name: fullName.split('/')[1],
  full_name: fullName,
  description: '',
  private: true,
  fork: false,
  parent: null,
  empty: false,
  mirror: false,
  size: 24576,
  html_url: `https://git.example.com/${fullName}`,
  ssh_url: `git@git.example.com:${fullName}.git`,
  clone_url: `https://git.example.com/${fullName}.git`,
  website: '',
  stars_count: 0,
  forks_count: 0,
  watchers_count: 1,
  open_issues_count: 0,
  default_branch: 'main',
  created_at: '2024-02-26T04:29:06-05:00',
  updated_at: '2024-03-13T13:51:58-04:00',
});

const alice = {
  id: 1,
  username: 'alice',
  login: 'alice',
  full_name: 'Alice',
  email: 'alice@example.com',
  avatar_url: 'https://secure.gravatar.com/avatar/d8b2',
};

/** Signs the payload as Gogs does: indented JSON, hex HMAC-SHA256 without a prefix. */
function delivery(event: string, payload: unknown, secret = SECRET) {
  const body = Buffer.from(JSON.stringify(payload, null, 2));
  return {
    headers: {
      'x-gogs-event': event,
      'x-gogs-delivery': 'f6266f16-1bf3-46a5-9ea4-602e06ead473',
      'x-gogs-signature': createHmac('sha256', secret).update(body).digest('hex'),
    },
    body,
  };
}

const parse = (request: ReturnType<typeof delivery>): Promise<ScmHookResult> =>
  parseHook(request, () => Promise.resolve(SECRET));

const push = {
  ref: 'refs/heads/main',
  before: '28e1879d029cb852e4844d9c718537df08844e03',
  after: 'bffeb74224043ba2feb48d137756c8a9331c449a',
  compare_url:
    'https://git.example.com/alice/app/compare/28e1879d029cb852e4844d9c718537df08844e03...bffeb74224043ba2feb48d137756c8a9331c449a',
  commits: [
    {
      id: 'bffeb74224043ba2feb48d137756c8a9331c449a',
      message: 'Fix build\n',
      url: 'https://git.example.com/alice/app/commit/bffeb74224043ba2feb48d137756c8a9331c449a',
      author: { name: 'Alice', email: 'alice@example.com', username: 'alice' },
      committer: { name: 'Alice', email: 'alice@example.com', username: 'alice' },
      added: [],
      removed: [],
      modified: ['Makefile'],
      timestamp: '2024-03-13T13:52:11-04:00',
    },
  ],
  repository: repository('alice/app'),
  pusher: alice,
  sender: alice,
};

describe('Gogs webhooks', () => {
  it('builds a branch push at `after`, with the newest commit’s message and author', async () => {
    expect(await parse(delivery('push', push))).toEqual({
      kind: 'build',
      delivery: 'f6266f16-1bf3-46a5-9ea4-602e06ead473',
      repo: { namespace: 'alice', name: 'app', uid: '140' },
      build: expect.objectContaining({
        event: 'push',
        ref: 'refs/heads/main',
        after: push.after,
        before: push.before,
        source: 'main',
        target: 'main',
        message: 'Fix build\n',
        authorLogin: 'alice',
        authorEmail: 'alice@example.com',
        authorAvatar: alice.avatar_url,
        link: push.compare_url,
        fork: false,
      }) as unknown,
    });
  });

  it('builds a push without commits (a force-push to an ancestor) at `after`', async () => {
    const result = await parse(delivery('push', { ...push, commits: [] }));
    expect(result).toMatchObject({
      kind: 'build',
      build: { after: push.after, message: '', authorLogin: 'alice' },
    });
  });

  it('builds a tag from its create event, Gogs’ only delivery for a pushed tag', async () => {
    const sha = '599d25c6a3b4b2e1d0f0f5d1b0c6e9b6a5c4d3e2';
    const created = {
      ref: 'v1.0.0',
      ref_type: 'tag',
      sha,
      default_branch: 'main',
      repository: repository('alice/app'),
      sender: alice,
    };
    expect(await parse(delivery('create', created))).toMatchObject({
      kind: 'build',
      build: { event: 'tag', ref: 'refs/tags/v1.0.0', after: sha, source: 'v1.0.0', sender: 'alice' },
    });
    // A new branch: its push event builds it.
    const branch = { ...created, ref: 'feature', ref_type: 'branch', sha: '' };
    expect(await parse(delivery('create', branch))).toEqual({
      kind: 'ignored',
      reason: 'branch created: built from its push event',
    });
  });

  it('builds nothing for a deleted branch or tag', async () => {
    const deleted = {
      ref: 'feature',
      ref_type: 'branch',
      pusher_type: 'user',
      repository: repository('alice/app'),
      sender: alice,
    };
    expect(await parse(delivery('delete', deleted))).toEqual({ kind: 'ignored', reason: 'branch deleted' });
    expect(await parse(delivery('delete', { ...deleted, ref_type: 'tag' }))).toEqual({
      kind: 'ignored',
      reason: 'tag deleted',
    });
  });

  const pullRequest = (action: string, headRepo: string, merged = false) => ({
    action,
    number: 2,
    pull_request: {
      id: 11,
      number: 2,
      user: { ...alice, id: 2, username: 'bob', login: 'bob' },
      title: 'Add feature',
      body: '',
      labels: [],
      milestone: null,
      assignee: null,
      state: action === 'closed' ? 'closed' : 'open',
      comments: 0,
      head_branch: 'feature',
      head_repo: repository(headRepo, 62),
      base_branch: 'main',
      base_repo: repository('alice/app'),
      html_url: 'https://git.example.com/alice/app/pulls/2',
      mergeable: true,
      merged,
      merged_at: null,
      merge_commit_sha: null,
      merged_by: null,
    },
    repository: repository('alice/app'),
    sender: { ...alice, username: 'bob', login: 'bob' },
  });

  it('builds an opened pull request from a fork at refs/pull/N/head, its commit left to the trigger', async () => {
    expect(await parse(delivery('pull_request', pullRequest('opened', 'bob/app')))).toMatchObject({
      kind: 'build',
      repo: { namespace: 'alice', name: 'app' },
      build: {
        event: 'pull_request',
        action: 'opened',
        ref: 'refs/pull/2/head',
        after: '',
        source: 'feature',
        target: 'main',
        sourceRepo: 'bob/app',
        fork: true,
        title: 'Add feature',
        authorLogin: 'bob',
        link: 'https://git.example.com/alice/app/pulls/2',
      },
    });
  });

  it('builds synchronized and reopened pull requests; not closed or merged ones, nor label changes', async () => {
    const same = await parse(delivery('pull_request', pullRequest('synchronized', 'alice/app')));
    expect(same).toMatchObject({ kind: 'build', build: { action: 'synchronized', fork: false } });
    expect(await parse(delivery('pull_request', pullRequest('reopened', 'alice/app')))).toMatchObject({
      build: { action: 'reopened' },
    });
    expect(await parse(delivery('pull_request', pullRequest('closed', 'alice/app', true)))).toEqual({
      kind: 'ignored',
      reason: 'pull request merged',
    });
    expect(await parse(delivery('pull_request', pullRequest('closed', 'alice/app')))).toEqual({
      kind: 'ignored',
      reason: 'pull request closed',
    });
    expect(await parse(delivery('pull_request', pullRequest('label_updated', 'alice/app')))).toEqual({
      kind: 'ignored',
      reason: 'pull request label_updated',
    });
  });

  it('refuses a delivery without a signature, with another secret’s, or for an unknown repository', async () => {
    const unsigned = delivery('push', push);
    await expect(
      parse({ ...unsigned, headers: { ...unsigned.headers, 'x-gogs-signature': '' } }),
    ).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    });
    await expect(parse(delivery('push', push, 'another'))).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    // GitHub's prefixed form is not Gogs' and does not verify.
    const prefixed = delivery('push', push);
    const headers = {
      ...prefixed.headers,
      'x-gogs-signature': `sha256=${prefixed.headers['x-gogs-signature']}`,
    };
    await expect(parse({ ...prefixed, headers })).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    await expect(parseHook(delivery('push', push), () => Promise.resolve(undefined))).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    });
  });

  it('says which field a malformed payload lacks, after verifying it', async () => {
    await expect(parse(delivery('push', { repository: push.repository }))).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('Gogs webhook: the push payload lacks or misshapes ref') as unknown,
    });
  });

  it('ignores events it does not build', async () => {
    expect(await parse(delivery('issues', { action: 'opened', repository: push.repository }))).toEqual({
      kind: 'ignored',
      reason: 'event issues is not built',
    });
  });
});
