import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ScmHookResult } from '../../core/scm.js';
import { parseHook } from './parse.js';

const SECRET = 'hook-secret';

const repository = (fullName: string, id = 42) => ({
  id,
  owner: { id: 3, login: fullName.split('/')[0], username: fullName.split('/')[0], visibility: 'public' },
  name: fullName.split('/')[1],
  full_name: fullName,
  private: true,
  html_url: `https://git.example.com/${fullName}`,
  clone_url: `https://git.example.com/${fullName}.git`,
  ssh_url: `git@git.example.com:${fullName}.git`,
  default_branch: 'main',
  permissions: { admin: true, push: true, pull: true },
});

const alice = {
  id: 1,
  login: 'alice',
  username: 'alice',
  email: 'alice@example.com',
  avatar_url: 'https://git.example.com/avatars/9a77',
};
const bob = {
  id: 5,
  login: 'bob',
  username: 'bob',
  email: 'bob@example.com',
  avatar_url: 'https://git.example.com/avatars/bb',
};

/** Signs as Gitea does (bare hex HMAC-SHA256); `forgejo` sends Forgejo's headers only. */
function delivery(
  event: string,
  payload: unknown,
  options: { secret?: string; type?: string; forgejo?: boolean } = {},
) {
  const body = Buffer.from(JSON.stringify(payload));
  const signature = createHmac('sha256', options.secret ?? SECRET)
    .update(body)
    .digest('hex');
  const prefix = options.forgejo === true ? 'x-forgejo' : 'x-gitea';
  return {
    headers: {
      [`${prefix}-event`]: event,
      [`${prefix}-event-type`]: options.type ?? event,
      [`${prefix}-delivery`]: '5b6f1a1e-7c8d-4c51-9f2e-2a0b1b2c3d4e',
      [`${prefix}-signature`]: signature,
      'x-hub-signature-256': `sha256=${signature}`,
    },
    body,
  };
}

const parse = (request: ReturnType<typeof delivery>): Promise<ScmHookResult> =>
  parseHook(request, () => Promise.resolve(SECRET));

const commit = {
  id: 'c3d4e5f60718293a4b5c6d7e8f9012345678a1b2',
  message: 'Fix build\n',
  url: 'https://git.example.com/acme/demo/commit/c3d4e5f60718293a4b5c6d7e8f9012345678a1b2',
  author: { name: 'Alice', email: 'alice@example.com', username: 'alice' },
  committer: { name: 'Alice', email: 'alice@example.com', username: 'alice' },
  verification: null,
  timestamp: '2024-03-01T12:00:00Z',
  added: [],
  removed: [],
  modified: ['main.go'],
};

const push = {
  ref: 'refs/heads/main',
  before: 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678',
  after: commit.id,
  compare_url: `https://git.example.com/acme/demo/compare/a1b2c3d4e5f60718293a4b5c6d7e8f9012345678...${commit.id}`,
  commits: [commit],
  total_commits: 1,
  head_commit: commit,
  repository: repository('acme/demo'),
  pusher: alice,
  sender: alice,
};

const pullRequest = (action: string, headRepo: string, merged = false) => ({
  action,
  number: 7,
  pull_request: {
    id: 31,
    number: 7,
    user: bob,
    title: 'Add feature',
    state: action === 'closed' ? 'closed' : 'open',
    html_url: 'https://git.example.com/acme/demo/pulls/7',
    merged,
    base: { label: 'main', ref: 'main', sha: commit.id, repo_id: 42, repo: repository('acme/demo') },
    head: {
      label: 'feature/x',
      ref: 'feature/x',
      sha: 'd4e5f60718293a4b5c6d7e8f9012345678a1b2c3',
      repo_id: headRepo === 'acme/demo' ? 42 : 57,
      repo: repository(headRepo, headRepo === 'acme/demo' ? 42 : 57),
    },
  },
  repository: repository('acme/demo'),
  sender: bob,
});

describe('Gitea webhooks', () => {
  it('builds a branch push at `after`, with the head commit’s message and author', async () => {
    expect(await parse(delivery('push', push))).toEqual({
      kind: 'build',
      delivery: '5b6f1a1e-7c8d-4c51-9f2e-2a0b1b2c3d4e',
      repo: { namespace: 'acme', name: 'demo', uid: '42' },
      build: expect.objectContaining({
        event: 'push',
        ref: 'refs/heads/main',
        before: push.before,
        after: commit.id,
        source: 'main',
        message: 'Fix build\n',
        authorLogin: 'alice',
        authorEmail: 'alice@example.com',
        link: push.compare_url,
      }) as unknown,
    });
  });

  it('builds a tag from its push event at the tagged commit, and ignores the create event that may follow', async () => {
    const tagObject = 'f'.repeat(40);
    const tagged = {
      ...push,
      ref: 'refs/tags/v1.2.0',
      before: '0'.repeat(40),
      after: tagObject,
      commits: [],
      total_commits: 0,
      compare_url: '',
    };
    expect(await parse(delivery('push', tagged))).toMatchObject({
      kind: 'build',
      build: { event: 'tag', ref: 'refs/tags/v1.2.0', after: commit.id, source: 'v1.2.0' },
    });
    const created = {
      sha: tagObject,
      ref: 'v1.2.0',
      ref_type: 'tag',
      repository: repository('acme/demo'),
      sender: alice,
    };
    expect(await parse(delivery('create', created))).toEqual({
      kind: 'ignored',
      reason: 'created refs build from their push event',
    });
  });

  it('builds nothing for a deleted branch', async () => {
    const deleted = { ...push, after: '0'.repeat(40), commits: [], head_commit: null };
    expect(await parse(delivery('push', deleted))).toEqual({ kind: 'ignored', reason: 'branch deleted' });
    const event = {
      ref: 'feature',
      ref_type: 'branch',
      pusher_type: 'user',
      repository: repository('acme/demo'),
      sender: alice,
    };
    expect(await parse(delivery('delete', event))).toEqual({ kind: 'ignored', reason: 'ref deleted' });
  });

  it('builds a pull request from a fork at its head commit, on refs/pull/N/head', async () => {
    expect(await parse(delivery('pull_request', pullRequest('opened', 'bob/demo')))).toMatchObject({
      kind: 'build',
      build: {
        event: 'pull_request',
        action: 'opened',
        ref: 'refs/pull/7/head',
        before: commit.id,
        after: 'd4e5f60718293a4b5c6d7e8f9012345678a1b2c3',
        source: 'feature/x',
        target: 'main',
        sourceRepo: 'bob/demo',
        fork: true,
        title: 'Add feature',
        authorLogin: 'bob',
      },
    });
  });

  it('builds new commits (pull_request_sync) and reopened pull requests, not closed or merged ones', async () => {
    const sync = delivery('pull_request', pullRequest('synchronized', 'acme/demo'), {
      type: 'pull_request_sync',
    });
    expect(await parse(sync)).toMatchObject({
      kind: 'build',
      build: { action: 'synchronized', fork: false },
    });
    expect(await parse(delivery('pull_request', pullRequest('reopened', 'acme/demo')))).toMatchObject({
      build: { action: 'reopened' },
    });
    expect(await parse(delivery('pull_request', pullRequest('closed', 'acme/demo', true)))).toEqual({
      kind: 'ignored',
      reason: 'pull request merged',
    });
    expect(
      await parse(
        delivery('pull_request', pullRequest('label_updated', 'acme/demo'), { type: 'pull_request_label' }),
      ),
    ).toEqual({
      kind: 'ignored',
      reason: 'pull request label_updated',
    });
  });

  it('reads Forgejo’s own headers', async () => {
    expect(await parse(delivery('push', push, { forgejo: true }))).toMatchObject({
      kind: 'build',
      build: { event: 'push' },
      delivery: '5b6f1a1e-7c8d-4c51-9f2e-2a0b1b2c3d4e',
    });
  });

  it('refuses a delivery without a signature, with another secret’s, or for an unknown repository', async () => {
    const signed = delivery('push', push);
    await expect(
      parse({ ...signed, headers: { ...signed.headers, 'x-gitea-signature': '' } }),
    ).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    });
    await expect(parse(delivery('push', push, { secret: 'another' }))).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    });
    await expect(parseHook(delivery('push', push), () => Promise.resolve(undefined))).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    });
  });

  it('says which field a malformed payload lacks', async () => {
    await expect(
      parse(delivery('pull_request', { action: 'opened', repository: push.repository })),
    ).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining(
        'Gitea webhook: the pull_request payload lacks or misshapes number',
      ) as unknown,
    });
  });
});
