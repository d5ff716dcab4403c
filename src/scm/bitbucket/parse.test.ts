import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ScmHookResult } from '../../core/scm.js';
import { parseHook } from './parse.js';

const SECRET = "It's a Secret to Everybody";

const account = (nickname: string) => ({
  type: 'user',
  display_name: nickname === 'martin' ? 'Martin Herren' : 'Bob',
  nickname,
  uuid: '{c5a0d676-fd27-4bd4-ac69-a7540d7b495b}',
  account_id: '5cf8e3a9f1c7d10e8a4f2b10',
  links: { avatar: { href: `https://avatar-management.example/${nickname}.png` } },
});

const repository = (fullName: string, uuid = '{898477b2-a080-4089-b385-597a783db392}') => ({
  type: 'repository',
  full_name: fullName,
  name: fullName.split('/')[1],
  uuid,
  is_private: false,
  scm: 'git',
  workspace: {
    type: 'workspace',
    slug: fullName.split('/')[0],
    uuid: '{c5a0d676-fd27-4bd4-ac69-a7540d7b495b}',
    name: 'WS',
  },
  links: { html: { href: `https://bitbucket.org/${fullName}` } },
});

const commit = (hash: string, message: string) => ({
  type: 'commit',
  hash,
  message,
  date: '2022-09-07T20:19:25+00:00',
  author: { type: 'author', raw: 'Martin Herren <martin.herren@example.com>', user: account('martin') },
  links: { html: { href: `https://bitbucket.org/ws/repo/commits/${hash}` } },
  parents: [],
});

function delivery(event: string, payload: unknown, secret = SECRET) {
  const body = Buffer.from(JSON.stringify(payload));
  return {
    headers: {
      'x-event-key': event,
      'x-hook-uuid': 'd53603cc-8e5f-4b5a-9a6a-2a1b2c3d4e5f',
      'x-request-uuid': 'a6bbe7d5-d5e7-4e3c-8b6c-1f2e3d4c5b6a',
      'x-attempt-number': '1',
      'x-hub-signature': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
    },
    body,
  };
}

const parse = (request: ReturnType<typeof delivery>): Promise<ScmHookResult> =>
  parseHook(request, () => Promise.resolve(SECRET));

const push = (change: Record<string, unknown>) => ({
  actor: account('martin'),
  repository: repository('martinherren1984/publictestrepo'),
  push: { changes: [{ forced: false, created: false, closed: false, truncated: false, ...change }] },
});

describe('Bitbucket Cloud webhooks', () => {
  it('checks the documented signature: sha256= and the hex HMAC-SHA256 of the body', () => {
    // The test vector of Bitbucket's webhook security documentation.
    const digest = createHmac('sha256', SECRET).update('Hello World!').digest('hex');
    expect(digest).toBe('a4771c39fbe90f317c7824e83ddef3caae9cb3d976c214ace1f2937e133263c9');
  });

  it('builds a branch push at the new commit, with its author', async () => {
    const payload = push({
      old: {
        type: 'branch',
        name: 'main',
        target: commit('a51241ae1f00cbe728930db48e890b18fd527f99', 'old'),
      },
      new: {
        type: 'branch',
        name: 'main',
        target: commit('c14c1bb05dfb1fdcdf06b31485fff61b0ea44277', 'Update README.md\n'),
      },
    });
    expect(await parse(delivery('repo:push', payload))).toEqual({
      kind: 'build',
      delivery: 'a6bbe7d5-d5e7-4e3c-8b6c-1f2e3d4c5b6a',
      repo: {
        namespace: 'martinherren1984',
        name: 'publictestrepo',
        uid: '{898477b2-a080-4089-b385-597a783db392}',
      },
      build: expect.objectContaining({
        event: 'push',
        ref: 'refs/heads/main',
        before: 'a51241ae1f00cbe728930db48e890b18fd527f99',
        after: 'c14c1bb05dfb1fdcdf06b31485fff61b0ea44277',
        message: 'Update README.md\n',
        authorLogin: 'martin',
        authorName: 'Martin Herren',
        authorEmail: 'martin.herren@example.com',
      }) as unknown,
    });
  });

  it('builds a tag push as a tag, and nothing for a deleted branch or tag', async () => {
    const tag = push({
      created: true,
      old: null,
      new: {
        type: 'tag',
        name: 'v1.0',
        message: null,
        target: commit('c14c1bb05dfb1fdcdf06b31485fff61b0ea44277', 'x'),
      },
    });
    expect(await parse(delivery('repo:push', tag))).toMatchObject({
      kind: 'build',
      build: { event: 'tag', ref: 'refs/tags/v1.0', source: 'v1.0' },
    });
    const deleted = push({
      closed: true,
      new: null,
      old: { type: 'branch', name: 'develop', target: commit('a'.repeat(40), 'x') },
    });
    expect(await parse(delivery('repo:push', deleted))).toEqual({
      kind: 'ignored',
      reason: 'branch deleted',
    });
  });

  const pullRequest = (state: string, sourceRepo: string, uuid: string) => ({
    actor: account('bob'),
    repository: repository('ws/repo'),
    pullrequest: {
      type: 'pullrequest',
      id: 1,
      title: 'Awesome new feature',
      description: 'made some changes',
      state,
      author: account('bob'),
      source: {
        branch: { name: 'develop' },
        commit: { hash: '507a576e59b3' },
        repository: { type: 'repository', full_name: sourceRepo, uuid },
      },
      destination: {
        branch: { name: 'master' },
        commit: { hash: '7d1a175411ef' },
        repository: repository('ws/repo'),
      },
      links: { html: { href: 'https://bitbucket.org/ws/repo/pull-requests/1' } },
    },
  });

  it('builds an opened pull request from a fork with its short hash, for the trigger to complete', async () => {
    expect(
      await parse(
        delivery(
          'pullrequest:created',
          pullRequest('OPEN', 'bob/repo', '{bc771cbf-0000-0000-0000-000000000000}'),
        ),
      ),
    ).toMatchObject({
      kind: 'build',
      build: {
        event: 'pull_request',
        action: 'opened',
        after: '507a576e59b3',
        source: 'develop',
        target: 'master',
        sourceRepo: 'bob/repo',
        fork: true,
        authorLogin: 'bob',
      },
    });
    const updated = await parse(
      delivery(
        'pullrequest:updated',
        pullRequest('OPEN', 'ws/repo', '{898477b2-a080-4089-b385-597a783db392}'),
      ),
    );
    expect(updated).toMatchObject({ kind: 'build', build: { action: 'synchronized', fork: false } });
  });

  it('builds a pull request whose fork was deleted (no source repository) as a fork, with no source', async () => {
    const payload = pullRequest('OPEN', 'bob/repo', '{bc771cbf-0000-0000-0000-000000000000}');
    const gone = {
      ...payload,
      pullrequest: { ...payload.pullrequest, source: { ...payload.pullrequest.source, repository: null } },
    };
    expect(await parse(delivery('pullrequest:updated', gone))).toMatchObject({
      kind: 'build',
      build: { event: 'pull_request', sourceRepo: '', fork: true },
    });
  });

  it('ignores merged and declined pull requests, and other events', async () => {
    expect(await parse(delivery('pullrequest:fulfilled', pullRequest('MERGED', 'ws/repo', '{x}')))).toEqual({
      kind: 'ignored',
      reason: 'event pullrequest:fulfilled is not built',
    });
    expect(await parse(delivery('pullrequest:updated', pullRequest('DECLINED', 'ws/repo', '{x}')))).toEqual({
      kind: 'ignored',
      reason: 'pull request declined',
    });
  });

  it('refuses an unsigned delivery, another secret’s, or one for an unknown repository', async () => {
    const signed = delivery('repo:push', push({ new: null }));
    await expect(
      parse({ ...signed, headers: { ...signed.headers, 'x-hub-signature': '' } }),
    ).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    await expect(parse(delivery('repo:push', push({ new: null }), 'other'))).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    });
    await expect(parseHook(signed, () => Promise.resolve(undefined))).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    });
  });
});
