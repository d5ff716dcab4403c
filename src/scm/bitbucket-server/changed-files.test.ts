import { createPrivateKey } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startBitbucketServerDouble,
  type BitbucketServerDouble,
} from '../../../test/doubles/bitbucket-server/index.js';
import type { ScmProvider, ScmToken } from '../../core/scm.js';
import { recordingFetch, startReceiver, token } from '../provider-harness.case.js';
import { createBitbucketServerProvider } from './index.js';

/** Files named f0000.txt, f0001.txt, … under `dir`, each with its own content. */
const manyFiles = (dir: string, count: number) =>
  Object.fromEntries(
    Array.from({ length: count }, (_, i) => [`${dir}/f${String(i).padStart(4, '0')}.txt`, `${dir}${i}`]),
  );

/** Bitbucket Server's changed files of a push (compare, every page) and of a pull request (one page), on the double. */
describe('Bitbucket Server changedFiles', () => {
  let double: BitbucketServerDouble;
  let scm: ScmProvider;
  let alice: ScmToken;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const recorder = recordingFetch();
  const repo = { namespace: 'alice', name: 'demo' };

  beforeAll(async () => {
    double = await startBitbucketServerDouble();
    receiver = await startReceiver();
    alice = token(double.addUser({ login: 'alice' }).token);
    double.addRepo({ owner: 'alice', name: 'demo', admins: ['alice'] });
    double.commit('alice/demo', 'main', { 'a.txt': '1' });
    scm = createBitbucketServerProvider({
      server: double.url,
      consumerKey: double.consumerKey,
      privateKey: createPrivateKey(double.privateKeyPem),
      skipVerify: false,
      gitAlwaysAuth: false,
      gitUsername: null,
      gitPassword: null,
      fetch: recorder.fetch,
    });
    await scm.createHook(alice, repo, { url: receiver.url, secret: 'shh' });
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => receiver.server.close(() => resolve()));
    expect(double.unknownCalls()).toEqual([]);
    await double.close();
  });

  /** The `start` of every compare page svc asked for since `from`. */
  const startsAsked = (from: number) =>
    recorder.urls
      .slice(from)
      .filter((url) => url.pathname.endsWith('/compare/changes'))
      .map((url) => url.searchParams.get('start'));

  it('lists a push’s files across its commits, a move’s both paths, from the compare of the two', async () => {
    const before = double.commit('alice/demo', 'main', { 'old.txt': 'o' });
    double.commit('alice/demo', 'main', { 'skip.txt': 's' });
    const after = double.commit('alice/demo', 'main', {
      'a.txt': '2',
      'old.txt': null,
      'moved/old.txt': 'o',
      'src/new.go': 'n',
    });
    const from = recorder.urls.length;
    expect(await scm.changedFiles?.(alice, repo, { kind: 'push', before, after })).toEqual({
      known: true,
      files: ['a.txt', 'moved/old.txt', 'old.txt', 'skip.txt', 'src/new.go'],
    });
    const asked = recorder.urls.slice(from);
    expect(asked.map((url) => url.pathname)).toEqual([
      '/rest/api/1.0/projects/alice/repos/demo/compare/changes',
    ]);
    // The changes `after` has that `before` has not.
    expect(Object.fromEntries(asked[0]?.searchParams ?? [])).toEqual({
      from: after,
      to: before,
      start: '0',
      limit: '1000',
    });
  });

  it('reads every page of a long compare, and stops past 3,000 files', async () => {
    const before = double.commit('alice/demo', 'main', { 'a.txt': '5' });
    const files = manyFiles('many', 1500);
    const after = double.commit('alice/demo', 'main', files);
    let from = recorder.urls.length;
    expect(await scm.changedFiles?.(alice, repo, { kind: 'push', before, after })).toEqual({
      known: true,
      files: Object.keys(files).sort(),
    });
    // 1,000 changes a page, the servers' largest.
    expect(startsAsked(from)).toEqual(['0', '1000']);
    const huge = double.commit('alice/demo', 'main', manyFiles('huge', 3001));
    from = recorder.urls.length;
    expect(await scm.changedFiles?.(alice, repo, { kind: 'push', before: after, after: huge })).toEqual({
      known: false,
      reason: 'Bitbucket Server lists more than 3000 changed files of the push; svc reads no more',
    });
    expect(startsAsked(from)).toEqual(['0', '1000', '2000', '3000']);
  });

  it('does not claim to know a new branch’s files or a vanished commit’s', async () => {
    const after = double.commit('alice/demo', 'main', { 'a.txt': '4' });
    expect(await scm.changedFiles?.(alice, repo, { kind: 'push', before: '0'.repeat(40), after })).toEqual({
      known: false,
      reason: 'the push created the branch: there is no earlier commit to compare with',
    });
    expect(await scm.changedFiles?.(alice, repo, { kind: 'push', before: 'f'.repeat(40), after })).toEqual({
      known: false,
      reason: `Bitbucket Server cannot compare ffffffffffff with ${after.slice(0, 12)} (a forced push's earlier commit may be gone)`,
    });
  });

  it('reads a pull request’s changes in their one page, and does not claim to know a cut one', async () => {
    double.commit('alice/demo', 'main', { 'base.txt': 'b', 'rename-me.txt': 'r' });
    const files = manyFiles('pkg', 300);
    double.commit('alice/demo', 'feature', { ...files, 'rename-me.txt': null, 'renamed.txt': 'r' });
    const opened = await double.pullRequest('alice/demo', 'feature', receiver.url);
    const from = recorder.urls.length;
    expect(await scm.changedFiles?.(alice, repo, { kind: 'pull', number: opened.id })).toEqual({
      known: true,
      files: [...Object.keys(files), 'rename-me.txt', 'renamed.txt'].sort(),
    });
    const asked = recorder.urls.slice(from);
    expect(asked.map((url) => `${url.pathname}${url.search}`)).toEqual([
      `/rest/api/1.0/projects/alice/repos/demo/pull-requests/${opened.id}/changes?withComments=false&limit=1000`,
    ]);
    double.commit('alice/demo', 'huge', manyFiles('huge-pr', 1001));
    const huge = await double.pullRequest('alice/demo', 'huge', receiver.url);
    expect(await scm.changedFiles?.(alice, repo, { kind: 'pull', number: huge.id })).toEqual({
      known: false,
      reason: `Bitbucket Server lists only 1000 changes of pull request #${huge.id} (its changes come in one page)`,
    });
  });
});
