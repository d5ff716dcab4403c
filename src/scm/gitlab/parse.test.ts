import { describe, expect, it } from 'vitest';
import type { ScmHookResult } from '../../core/scm.js';
import { parseHook } from './parse.js';

const SECRET = 'hook-secret-token';

const project = (path: string, id = 2) => ({
  id,
  name: path.split('/').at(-1),
  description: '',
  web_url: `https://gitlab.example.com/${path}`,
  avatar_url: null,
  git_ssh_url: `git@gitlab.example.com:${path}.git`,
  git_http_url: `https://gitlab.example.com/${path}.git`,
  namespace: 'The Group',
  visibility_level: 20,
  path_with_namespace: path,
  default_branch: 'main',
  ci_config_path: null,
});

function delivery(event: string, payload: unknown, token = SECRET) {
  return {
    headers: {
      'x-gitlab-event': event,
      'x-gitlab-token': token,
      'x-gitlab-event-uuid': '13792a34-cac6-4fda-95a8-c58e00a3954e',
      'x-gitlab-instance': 'https://gitlab.example.com',
    },
    body: Buffer.from(JSON.stringify(payload)),
  };
}

const parse = (request: ReturnType<typeof delivery>): Promise<ScmHookResult> =>
  parseHook(request, () => Promise.resolve(SECRET));

const push = {
  object_kind: 'push',
  event_name: 'push',
  before: 'ffe8eb4f91d1fe6bc49f1e610e50e4b5767f0104',
  after: '16862e368d8ab812e48833b741dad720d6e2cb7f',
  ref: 'refs/heads/main',
  ref_protected: true,
  checkout_sha: '16862e368d8ab812e48833b741dad720d6e2cb7f',
  message: null,
  user_id: 2,
  user_name: 'The Test',
  user_username: 'test',
  user_email: '',
  user_avatar: 'https://www.gravatar.com/avatar/dd46a756faad4727fb679320751f6dea?s=80&d=identicon',
  project_id: 2,
  project: project('group/sub/app'),
  commits: [
    {
      id: 'aaaa1111aaaa1111aaaa1111aaaa1111aaaa1111',
      message: 'Older\n',
      title: 'Older',
      timestamp: '2021-09-27T04:40:00+00:00',
      url: 'https://gitlab.example.com/group/sub/app/-/commit/aaaa',
      author: { name: 'The Test', email: 'test@example.com' },
      added: [],
      modified: [],
      removed: [],
    },
    {
      id: '16862e368d8ab812e48833b741dad720d6e2cb7f',
      message: 'Update main.go\n',
      title: 'Update main.go',
      timestamp: '2021-09-27T04:46:14+00:00',
      url: 'https://gitlab.example.com/group/sub/app/-/commit/16862e36',
      author: { name: 'The Test', email: 'test@example.com' },
      added: [],
      modified: ['cmd/cli/main.go'],
      removed: [],
    },
  ],
  total_commits_count: 2,
  push_options: {},
};

describe('GitLab webhooks', () => {
  it('names the delivery by Idempotency-Key, which retries keep, before the older X-Gitlab-Event-UUID', async () => {
    const sent = delivery('Push Hook', push);
    const keyed = { ...sent, headers: { ...sent.headers, 'idempotency-key': 'a5e9c3f0-key' } };
    expect(await parse(keyed)).toMatchObject({ kind: 'build', delivery: 'a5e9c3f0-key' });
    const none = { ...sent, headers: { ...sent.headers, 'x-gitlab-event-uuid': '' } };
    expect(await parse(none)).toMatchObject({ kind: 'build', delivery: '' });
  });

  it('builds a push of a project in a subgroup at its last commit', async () => {
    expect(await parse(delivery('Push Hook', push))).toEqual({
      kind: 'build',
      delivery: '13792a34-cac6-4fda-95a8-c58e00a3954e',
      repo: { namespace: 'group/sub', name: 'app', uid: '2' },
      build: expect.objectContaining({
        event: 'push',
        ref: 'refs/heads/main',
        after: push.after,
        message: 'Update main.go\n',
        authorLogin: 'test',
        authorEmail: 'test@example.com',
        sourceRepo: 'group/sub/app',
      }) as unknown,
    });
  });

  it('builds an annotated tag at the commit it points to (checkout_sha), not the tag object', async () => {
    const tag = {
      ...push,
      object_kind: 'tag_push',
      event_name: 'tag_push',
      ref: 'refs/tags/v22',
      before: '0'.repeat(40),
      after: 'fabed3d9fabed3d9fabed3d9fabed3d9fabed3d9',
      message: 'hi',
      commits: [],
      total_commits_count: 0,
    };
    expect(await parse(delivery('Tag Push Hook', tag))).toMatchObject({
      kind: 'build',
      build: { event: 'tag', ref: 'refs/tags/v22', after: push.checkout_sha, source: 'v22', message: 'hi' },
    });
  });

  it('builds nothing for a deleted branch', async () => {
    const deleted = {
      ...push,
      after: '0'.repeat(40),
      checkout_sha: null,
      commits: [],
      total_commits_count: 0,
    };
    expect(await parse(delivery('Push Hook', deleted))).toEqual({
      kind: 'ignored',
      reason: 'branch deleted',
    });
  });

  const mergeRequest = (action: string, extra: Record<string, unknown> = {}, sourceId = 32) => ({
    object_kind: 'merge_request',
    event_type: 'merge_request',
    user: {
      id: 7,
      name: 'Bob',
      username: 'bob',
      avatar_url: 'https://secure.gravatar.com/avatar/b',
      email: '[REDACTED]',
    },
    project: project('group/sub/app'),
    object_attributes: {
      id: 134400602,
      iid: 3,
      title: 'Update client.go',
      state: 'opened',
      action,
      source_branch: 'feature',
      target_branch: 'main',
      source_project_id: sourceId,
      target_project_id: 2,
      url: 'https://gitlab.example.com/group/sub/app/-/merge_requests/3',
      source: project(sourceId === 2 ? 'group/sub/app' : 'bob/app', sourceId),
      target: project('group/sub/app'),
      last_commit: {
        id: 'c136499ec574e1034b24c5d306de9acda3005367',
        message: 'Update folder/todo.txt',
        title: 'Update folder/todo.txt',
        timestamp: '2022-01-17T15:47:38+00:00',
        url: 'https://gitlab.example.com/bob/app/-/commit/c136499e',
        author: { name: 'Bob', email: 'bob@example.com' },
      },
      ...extra,
    },
    labels: [],
    changes: {},
  });

  it('builds an opened merge request from a fork on refs/merge-requests/<iid>/head', async () => {
    expect(await parse(delivery('Merge Request Hook', mergeRequest('open')))).toMatchObject({
      kind: 'build',
      repo: { namespace: 'group/sub', name: 'app', uid: '2' },
      build: {
        event: 'pull_request',
        action: 'opened',
        ref: 'refs/merge-requests/3/head',
        after: 'c136499ec574e1034b24c5d306de9acda3005367',
        source: 'feature',
        target: 'main',
        sourceRepo: 'bob/app',
        fork: true,
        authorLogin: 'bob',
      },
    });
  });

  it('builds an update with new commits (oldrev), not one of title or labels, nor closed or merged ones', async () => {
    const pushed = await parse(
      delivery(
        'Merge Request Hook',
        mergeRequest('update', { oldrev: '8b641937b7340066d882b9d8a8cc5b0573a207de' }, 2),
      ),
    );
    expect(pushed).toMatchObject({
      kind: 'build',
      build: { action: 'synchronized', fork: false, before: '8b641937b7340066d882b9d8a8cc5b0573a207de' },
    });
    expect(await parse(delivery('Merge Request Hook', mergeRequest('update')))).toEqual({
      kind: 'ignored',
      reason: 'merge request updated without new commits',
    });
    expect(await parse(delivery('Merge Request Hook', mergeRequest('reopen')))).toMatchObject({
      build: { action: 'reopened' },
    });
    expect(await parse(delivery('Merge Request Hook', mergeRequest('merge')))).toEqual({
      kind: 'ignored',
      reason: 'merge request merge',
    });
    expect(await parse(delivery('Merge Request Hook', mergeRequest('approved')))).toEqual({
      kind: 'ignored',
      reason: 'merge request approved',
    });
  });

  it('refuses a delivery without the token, with another token, or for an unknown project', async () => {
    const unsigned = delivery('Push Hook', push);
    await expect(
      parse({ ...unsigned, headers: { ...unsigned.headers, 'x-gitlab-token': '' } }),
    ).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    await expect(parse(delivery('Push Hook', push, 'guess'))).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    await expect(
      parseHook(delivery('Push Hook', push), () => Promise.resolve(undefined)),
    ).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('ignores events it does not build', async () => {
    expect(await parse(delivery('Note Hook', { object_kind: 'note', project: push.project }))).toEqual({
      kind: 'ignored',
      reason: 'event Note Hook is not built',
    });
  });
});
