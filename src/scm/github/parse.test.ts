import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { SvcError, type ErrorCode } from '../../core/errors.js';
import type { ScmHookRequest, ScmHookResult, ScmRepoRef } from '../../core/scm.js';
import { parseHook } from './parse.js';

/*
 * Real GitHub webhook payloads, as collected by @octokit/webhooks-examples. Their repository is
 * Codertocat/Hello-World (id 186853002) unless said otherwise.
 */
type Payload = Record<string, unknown> & { action?: string; ref?: string; deleted?: boolean };
const examplesFile = createRequire(import.meta.url).resolve(
  '@octokit/webhooks-examples/api.github.com/index.json',
);
const definitions = JSON.parse(readFileSync(examplesFile, 'utf8')) as { name: string; examples: Payload[] }[];

function examples(event: string): Payload[] {
  const found = definitions.find((d) => d.name === event)?.examples ?? [];
  if (found.length === 0) throw new Error(`no ${event} examples`);
  return found;
}

function example(event: string, matches: (p: Payload) => boolean): Payload {
  const found = examples(event).find(matches);
  if (found === undefined) throw new Error(`no matching ${event} example`);
  return structuredClone(found);
}

const SECRET = 'It’s a Secret to Everybody';
const HELLO = { namespace: 'Codertocat', name: 'Hello-World', uid: '186853002' };

/** A delivery as GitHub sends it: the exact body bytes, signed. */
function delivery(event: string | undefined, body: string | Buffer, secret = SECRET): ScmHookRequest {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  return {
    headers: {
      'x-github-event': event,
      'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
      'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(bytes).digest('hex')}`,
    },
    body: bytes,
  };
}

/** Secrets of the repositories svc knows, recording what it was asked. */
function secrets(known: Record<string, string> = { '186853002': SECRET }) {
  const asked: (ScmRepoRef & { uid: string })[] = [];
  const secretOf = (repo: ScmRepoRef & { uid: string }) => {
    asked.push(repo);
    return Promise.resolve(known[repo.uid]);
  };
  return { asked, secretOf };
}

async function parse(event: string, payload: unknown): Promise<ScmHookResult> {
  return parseHook(delivery(event, JSON.stringify(payload)), secrets().secretOf);
}

async function expectCode(promise: Promise<unknown>, code: ErrorCode): Promise<SvcError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SvcError);
  expect((error as SvcError).code, (error as SvcError).message).toBe(code);
  return error as SvcError;
}

describe('GitHub push webhooks', () => {
  it('builds a branch push as a push', async () => {
    const payload = example('push', (p) => p.ref === 'refs/heads/master');
    const { asked, secretOf } = secrets();
    const result = await parseHook(delivery('push', JSON.stringify(payload)), secretOf);
    expect(asked).toEqual([HELLO]);
    expect(result).toEqual({
      kind: 'build',
      delivery: '72d3162e-cc78-11e3-81ab-4c9367dc0958',
      repo: HELLO,
      build: {
        event: 'push',
        action: '',
        ref: 'refs/heads/master',
        before: '0000000000000000000000000000000000000000',
        after: '6113728f27ae82c7b1a177c8d03f9e96e0adf246',
        source: 'master',
        target: 'master',
        sourceRepo: 'Codertocat/Hello-World',
        fork: false,
        title: '',
        message: 'Initial commit',
        link: 'https://github.com/Codertocat/Hello-World/commit/6113728f27ae82c7b1a177c8d03f9e96e0adf246',
        authorLogin: 'Codertocat',
        authorName: 'Codertocat',
        authorEmail: '21031067+Codertocat@users.noreply.github.com',
        authorAvatar: 'https://avatars1.githubusercontent.com/u/21031067?v=4',
        sender: 'Codertocat',
      },
    });
  });

  it('builds a tag push as a tag, at the tagged commit', async () => {
    const payload = example('push', (p) => p.ref === 'refs/tags/simple-tag' && p.deleted === false);
    // An annotated tag's `after` is the tag object; the build needs the commit.
    payload.after = 'a10867b14bb761a232cd80139fbd4c0d33264240';
    const result = await parse('push', payload);
    expect(result).toMatchObject({
      kind: 'build',
      build: {
        event: 'tag',
        action: 'created',
        ref: 'refs/tags/simple-tag',
        after: '6113728f27ae82c7b1a177c8d03f9e96e0adf246',
        source: 'simple-tag',
        target: 'simple-tag',
      },
    });
  });

  it('ignores a deleted tag and a deleted branch', async () => {
    const deletedTag = example('push', (p) => p.ref === 'refs/tags/simple-tag' && p.deleted === true);
    expect(await parse('push', deletedTag)).toEqual({ kind: 'ignored', reason: 'tag deleted' });
    // The collection has no branch deletion: the same delivery for a branch differs only in its ref.
    const deletedBranch = { ...deletedTag, ref: 'refs/heads/feature' };
    expect(await parse('push', deletedBranch)).toEqual({ kind: 'ignored', reason: 'branch deleted' });
  });

  it('reads every push example in the collection', async () => {
    for (const payload of examples('push')) {
      const result = await parse('push', payload);
      expect(['build', 'ignored']).toContain(result.kind);
    }
  });
});

describe('GitHub pull request webhooks', () => {
  it('builds an opened pull request from its head', async () => {
    const payload = example('pull_request', (p) => p.action === 'opened');
    expect(await parse('pull_request', payload)).toEqual({
      kind: 'build',
      delivery: '72d3162e-cc78-11e3-81ab-4c9367dc0958',
      repo: HELLO,
      build: {
        event: 'pull_request',
        action: 'opened',
        ref: 'refs/pull/2/head',
        before: 'f95f852bd8fca8fcc58a9a2d6c842781e32a215e',
        after: 'ec26c3e57ca3a959ca5aad62de7213c562f8c821',
        source: 'changes',
        target: 'master',
        sourceRepo: 'Codertocat/Hello-World',
        fork: false,
        title: 'Update the README with new information.',
        message: 'Update the README with new information.',
        link: 'https://github.com/Codertocat/Hello-World/pull/2',
        authorLogin: 'Codertocat',
        authorName: '',
        authorEmail: '',
        authorAvatar: 'https://avatars1.githubusercontent.com/u/21031067?v=4',
        sender: 'Codertocat',
      },
    });
  });

  it('names synchronize `synchronized` and builds reopened pull requests', async () => {
    const synced = await parse(
      'pull_request',
      example('pull_request', (p) => p.action === 'synchronize'),
    );
    expect(synced).toMatchObject({ kind: 'build', build: { action: 'synchronized', event: 'pull_request' } });
    const reopened = await parse(
      'pull_request',
      example('pull_request', (p) => p.action === 'reopened'),
    );
    expect(reopened).toMatchObject({ kind: 'build', build: { action: 'reopened' } });
  });

  it('marks a pull request from another repository as a fork', async () => {
    const payload = example('pull_request', (p) => p.action === 'opened');
    const pr = payload.pull_request as { head: { repo: { full_name: string } } };
    pr.head.repo.full_name = 'Octocoders/Hello-World';
    expect(await parse('pull_request', payload)).toMatchObject({
      kind: 'build',
      build: { fork: true, sourceRepo: 'Octocoders/Hello-World' },
    });
  });

  it('ignores closed, labeled and other activity, saying which', async () => {
    for (const action of ['closed', 'labeled', 'assigned', 'converted_to_draft', 'review_requested']) {
      const payload = example('pull_request', (p) => p.action === action);
      expect(await parse('pull_request', payload)).toEqual({
        kind: 'ignored',
        reason: `pull request ${action}`,
      });
    }
  });

  it('reads every pull_request example in the collection', async () => {
    for (const payload of examples('pull_request')) {
      const result = await parse('pull_request', payload);
      expect(result.kind).toBe(
        ['opened', 'synchronize', 'reopened'].includes(payload.action ?? '') ? 'build' : 'ignored',
      );
    }
  });
});

describe('other GitHub webhooks', () => {
  it('ignores ping', async () => {
    const payload = example('ping', (p) => p.repository !== undefined);
    const known = { [String((payload.repository as { id: number }).id)]: SECRET };
    const result = await parseHook(delivery('ping', JSON.stringify(payload)), secrets(known).secretOf);
    expect(result).toEqual({ kind: 'ignored', reason: 'ping' });
  });

  it('ignores tag creation, which arrives as a push too', async () => {
    expect(
      await parse(
        'create',
        example('create', () => true),
      ),
    ).toEqual({
      kind: 'ignored',
      reason: 'tag created: built from its push event',
    });
  });

  it('ignores events svc does not build', async () => {
    expect(
      await parse(
        'issues',
        example('issues', () => true),
      ),
    ).toEqual({
      kind: 'ignored',
      reason: 'event issues is not built',
    });
  });
});

describe('GitHub webhook verification', () => {
  const payload = example('push', (p) => p.ref === 'refs/heads/master');

  it('verifies the signature over the exact bytes received', async () => {
    const pretty = JSON.stringify(payload, null, 2);
    const signed = delivery('push', pretty);
    expect((await parseHook(signed, secrets().secretOf)).kind).toBe('build');
    // The same JSON in other bytes is not what GitHub signed.
    const reserialized = { ...signed, body: Buffer.from(JSON.stringify(payload)) };
    await expectCode(parseHook(reserialized, secrets().secretOf), 'UNAUTHORIZED');
  });

  it('rejects a wrong signature, before reading the event', async () => {
    const forged = delivery('push', JSON.stringify({ ...payload, ref: 42 }), 'guessed');
    await expectCode(parseHook(forged, secrets().secretOf), 'UNAUTHORIZED');
  });

  it('rejects a delivery without X-Hub-Signature-256 without asking for a secret', async () => {
    const body = JSON.stringify(payload);
    const unsigned: ScmHookRequest = {
      headers: {
        'x-github-event': 'push',
        // The legacy SHA-1 signature alone is not accepted.
        'x-hub-signature': `sha1=${createHmac('sha1', SECRET).update(body).digest('hex')}`,
      },
      body: Buffer.from(body),
    };
    const { asked, secretOf } = secrets();
    await expectCode(parseHook(unsigned, secretOf), 'UNAUTHORIZED');
    expect(asked).toEqual([]);
  });

  it('rejects a delivery for a repository svc does not know', async () => {
    const { asked, secretOf } = secrets({});
    const error = await expectCode(
      parseHook(delivery('push', JSON.stringify(payload)), secretOf),
      'UNAUTHORIZED',
    );
    expect(error.message).toContain('Codertocat/Hello-World');
    expect(asked).toEqual([HELLO]);
  });

  it('rejects a delivery for a repository without a secret, whatever it is signed with', async () => {
    const emptyKey = delivery('push', JSON.stringify(payload), '');
    await expectCode(parseHook(emptyKey, secrets({ '186853002': '' }).secretOf), 'UNAUTHORIZED');
  });

  it('rejects a delivery that names no repository', async () => {
    const orgPing = example('ping', (p) => p.repository === undefined);
    await expectCode(
      parseHook(delivery('ping', JSON.stringify(orgPing)), secrets().secretOf),
      'UNAUTHORIZED',
    );
  });

  it('answers INVALID_INPUT for a body that is not JSON', async () => {
    await expectCode(parseHook(delivery('push', '{"ref": '), secrets().secretOf), 'INVALID_INPUT');
  });

  it('answers INVALID_INPUT for a verified delivery without event or with a misshapen payload', async () => {
    await expectCode(
      parseHook(delivery(undefined, JSON.stringify(payload)), secrets().secretOf),
      'INVALID_INPUT',
    );
    const misshapen = { ...payload, ref: 42 };
    const error = await expectCode(
      parseHook(delivery('push', JSON.stringify(misshapen)), secrets().secretOf),
      'INVALID_INPUT',
    );
    expect(error.message).toContain('ref');
  });
});
