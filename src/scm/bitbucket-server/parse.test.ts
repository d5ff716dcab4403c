import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ScmHookResult } from '../../core/scm.js';
import { expectCode } from '../provider-harness.case.js';
import { parseHook } from './parse.js';

/*
 * Deliveries shaped like the examples of Atlassian's "Event payload" page for Bitbucket Server and
 * Data Center (repo:refs_changed, pr:opened, pr:from_ref_updated, pr:modified), signed the way
 * Bitbucket signs them: `X-Hub-Signature: sha256=<hex HMAC-SHA256 of the body>`.
 */

const SECRET = 'a-webhook-secret-of-32-characters';
const ZERO = '0'.repeat(40);
const FROM = '5c64a07cd6c0f21b753bf261ef059c7e7633c50a';
const TO = '823b2230a56056231c9425d63758fa87078a66b4';
const PR_HEAD = '208b0a5ceca6bb66a4bd3a01a6e33fc0e75f2aa2';

const user = (slug: string) => ({
  name: slug,
  emailAddress: `${slug}@example.com`,
  id: 1,
  displayName: slug === 'jcitizen' ? 'Jane Citizen' : 'Bob',
  active: true,
  slug,
  type: 'NORMAL',
  links: { self: [{ href: `http://example.com:7990/users/${slug}` }] },
});

const repository = (key: string, slug: string, id = 84) => ({
  slug,
  id,
  name: slug,
  hierarchyId: 'af05451fc6eb4bbc6cbd',
  scmId: 'git',
  state: 'AVAILABLE',
  statusMessage: 'Available',
  forkable: true,
  project: { key, id: 2, name: key, public: false, type: key.startsWith('~') ? 'PERSONAL' : 'NORMAL' },
  public: false,
  links: {
    clone: [
      { href: `ssh://git@example.com:7999/${key.toLowerCase()}/${slug}.git`, name: 'ssh' },
      { href: `http://example.com:7990/scm/${key.toLowerCase()}/${slug}.git`, name: 'http' },
    ],
    self: [{ href: `http://example.com:7990/projects/${key}/repos/${slug}/browse` }],
  },
});

const refsChanged = (changes: unknown[]) => ({
  eventKey: 'repo:refs_changed',
  date: '2017-09-19T09:58:11+1000',
  actor: user('jcitizen'),
  repository: repository('PRJ', 'repository'),
  changes,
});

const change = (type: 'BRANCH' | 'TAG', name: string, kind: string, fromHash: string, toHash: string) => ({
  ref: { id: `refs/${type === 'TAG' ? 'tags' : 'heads'}/${name}`, displayId: name, type },
  refId: `refs/${type === 'TAG' ? 'tags' : 'heads'}/${name}`,
  fromHash,
  toHash,
  type: kind,
});

const pullRequest = (event: string, extra: Record<string, unknown> = {}, fork = false) => ({
  eventKey: event,
  date: '2017-09-19T10:39:36+1000',
  actor: user('bob'),
  pullRequest: {
    id: 9,
    version: 1,
    title: 'Markdown formatting',
    description: 'A new description',
    state: 'OPEN',
    open: true,
    closed: false,
    createdDate: 1505781560908,
    updatedDate: 1505781576361,
    fromRef: {
      id: 'refs/heads/feature-ABC-1',
      displayId: 'feature-ABC-1',
      latestCommit: PR_HEAD,
      type: 'BRANCH',
      repository: fork ? repository('~BOB', 'repository', 85) : repository('PRJ', 'repository'),
    },
    toRef: {
      id: 'refs/heads/master',
      displayId: 'master',
      latestCommit: TO,
      type: 'BRANCH',
      repository: repository('PRJ', 'repository'),
    },
    locked: false,
    author: { user: user('bob'), role: 'AUTHOR', approved: false, status: 'UNAPPROVED' },
    reviewers: [],
    participants: [],
    links: { self: [{ href: 'http://example.com:7990/projects/PRJ/repos/repository/pull-requests/9' }] },
  },
  ...extra,
});

function delivery(event: string, payload: unknown, secret = SECRET) {
  const body = Buffer.from(JSON.stringify(payload));
  return {
    headers: {
      'x-event-key': event,
      'x-request-id': '3e8b8a6f-2c1b-4b7e-9d43-8c2f0a8a0f3b',
      'content-type': 'application/json; charset=utf-8',
      'x-hub-signature': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
    },
    body,
  };
}

const parse = (request: ReturnType<typeof delivery>): Promise<ScmHookResult> =>
  parseHook(request, () => Promise.resolve(SECRET));

describe('Bitbucket Server webhooks', () => {
  it('reads a branch push as incomplete, for the trigger to read its commit', async () => {
    const result = await parse(
      delivery('repo:refs_changed', refsChanged([change('BRANCH', 'master', 'UPDATE', FROM, TO)])),
    );
    expect(result).toMatchObject({
      kind: 'build',
      repo: { namespace: 'PRJ', name: 'repository', uid: '84' },
      build: {
        event: 'push',
        ref: 'refs/heads/master',
        before: FROM,
        after: TO,
        source: 'master',
        sourceRepo: 'PRJ/repository',
        link: `http://example.com:7990/projects/PRJ/repos/repository/commits/${TO}`,
        sender: 'jcitizen',
        incomplete: true,
      },
    });
  });

  it('reads a tag push, and takes the first created or moved ref of a push', async () => {
    const result = await parse(
      delivery(
        'repo:refs_changed',
        refsChanged([change('BRANCH', 'old', 'DELETE', FROM, ZERO), change('TAG', 'v1.0', 'ADD', ZERO, TO)]),
      ),
    );
    expect(result).toMatchObject({
      kind: 'build',
      build: { event: 'tag', action: 'created', ref: 'refs/tags/v1.0', after: TO, incomplete: true },
    });
  });

  it('builds nothing for deleted branches and tags', async () => {
    expect(
      await parse(
        delivery('repo:refs_changed', refsChanged([change('BRANCH', 'gone', 'DELETE', FROM, ZERO)])),
      ),
    ).toEqual({ kind: 'ignored', reason: 'branch deleted' });
    expect(
      await parse(delivery('repo:refs_changed', refsChanged([change('TAG', 'v0', 'DELETE', FROM, ZERO)]))),
    ).toEqual({ kind: 'ignored', reason: 'tag deleted' });
  });

  it('reads a pull request opened and updated, at its source commit and pull request ref', async () => {
    const opened = await parse(delivery('pr:opened', pullRequest('pr:opened')));
    expect(opened).toMatchObject({
      kind: 'build',
      repo: { namespace: 'PRJ', name: 'repository', uid: '84' },
      build: {
        event: 'pull_request',
        action: 'opened',
        ref: 'refs/pull-requests/9/from',
        before: TO,
        after: PR_HEAD,
        source: 'feature-ABC-1',
        target: 'master',
        sourceRepo: 'PRJ/repository',
        fork: false,
        title: 'Markdown formatting',
        link: 'http://example.com:7990/projects/PRJ/repos/repository/pull-requests/9',
        authorLogin: 'bob',
        authorEmail: 'bob@example.com',
        sender: 'bob',
      },
    });
    const updated = await parse(
      delivery('pr:from_ref_updated', pullRequest('pr:from_ref_updated', { previousFromHash: FROM })),
    );
    expect(updated).toMatchObject({ kind: 'build', build: { action: 'synchronized', after: PR_HEAD } });
  });

  it('tells a pull request from a fork (another repository id) by its source repository', async () => {
    const result = await parse(delivery('pr:opened', pullRequest('pr:opened', {}, true)));
    expect(result).toMatchObject({ kind: 'build', build: { fork: true, sourceRepo: '~BOB/repository' } });
  });

  it('builds a retargeted pull request, not an edited one, nor a closed one', async () => {
    const target = { id: 'refs/heads/develop', displayId: 'develop', type: 'BRANCH', latestCommit: FROM };
    expect(
      await parse(delivery('pr:modified', pullRequest('pr:modified', { previousTarget: target }))),
    ).toMatchObject({ kind: 'build', build: { action: 'synchronized', target: 'master' } });
    const same = { id: 'refs/heads/master', displayId: 'master', type: 'BRANCH', latestCommit: TO };
    expect(
      await parse(
        delivery('pr:modified', pullRequest('pr:modified', { previousTitle: 'Old', previousTarget: same })),
      ),
    ).toEqual({ kind: 'ignored', reason: 'pull request edited' });
    const merged = pullRequest('pr:opened');
    merged.pullRequest.state = 'MERGED';
    expect(await parse(delivery('pr:opened', merged))).toEqual({
      kind: 'ignored',
      reason: 'pull request merged',
    });
  });

  it('refuses a delivery without signature, with a wrong one, or for an unknown repository', async () => {
    const payload = refsChanged([change('BRANCH', 'master', 'UPDATE', FROM, TO)]);
    const unsigned = delivery('repo:refs_changed', payload);
    delete (unsigned.headers as Record<string, string | undefined>)['x-hub-signature'];
    await expectCode(parse(unsigned), 'UNAUTHORIZED');
    await expectCode(parse(delivery('repo:refs_changed', payload, 'not-the-secret')), 'UNAUTHORIZED');
    await expectCode(
      parseHook(delivery('repo:refs_changed', payload), () => Promise.resolve(undefined)),
      'UNAUTHORIZED',
    );
  });

  it('answers the "Test connection" ping without reading it, and ignores events it does not build', async () => {
    const ping = { headers: { 'x-event-key': 'diagnostics:ping' }, body: Buffer.from('{"test": true}') };
    expect(await parseHook(ping, () => Promise.resolve(undefined))).toEqual({
      kind: 'ignored',
      reason: 'a test of the connection',
    });
    expect(await parse(delivery('pr:merged', pullRequest('pr:merged')))).toEqual({
      kind: 'ignored',
      reason: 'event pr:merged is not built',
    });
  });

  it('calls a signed payload of the wrong shape invalid input', async () => {
    await expectCode(
      parse(delivery('repo:refs_changed', { repository: repository('PRJ', 'repository') })),
      'INVALID_INPUT',
    );
  });
});
