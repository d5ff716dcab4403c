import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBitbucketDouble, type BitbucketDouble } from '../../../test/doubles/bitbucket/index.js';
import type { ScmProvider, ScmToken } from '../../core/scm.js';
import { recordingFetch, startReceiver, token } from '../provider-harness.case.js';
import { createBitbucketProvider } from './index.js';

/** Files named f0000.txt, f0001.txt, … under `dir`, each with its own content. */
const manyFiles = (dir: string, count: number) =>
  Object.fromEntries(
    Array.from({ length: count }, (_, i) => [`${dir}/f${String(i).padStart(4, '0')}.txt`, `${dir}${i}`]),
  );

/** Bitbucket Cloud's changed files of a push and of a pull request (diffstats, every page), on the double. */
describe('Bitbucket Cloud changedFiles', () => {
  let double: BitbucketDouble;
  let scm: ScmProvider;
  let alice: ScmToken;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const recorder = recordingFetch();
  const repo = { namespace: 'alice', name: 'demo' };

  beforeAll(async () => {
    double = await startBitbucketDouble();
    receiver = await startReceiver();
    alice = token(double.addUser({ login: 'alice' }).token);
    double.addRepo({ owner: 'alice', name: 'demo' });
    double.commit('alice/demo', 'main', { 'a.txt': '1' });
    scm = createBitbucketProvider({
      clientId: double.key,
      clientSecret: double.secret,
      server: double.url,
      apiServer: double.url,
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

  /** The diffstat pages svc asked for since `from` (a first page has no `page`). */
  const pagesAsked = (from: number) =>
    recorder.urls
      .slice(from)
      .filter((url) => url.pathname.endsWith('/diffstat') || url.pathname.includes('/diffstat/'))
      .map((url) => url.searchParams.get('page') ?? '1');

  it('lists a push’s files across its commits, a rename’s both names, from the diffstat of the two', async () => {
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
    // The commit with the changes comes first, as Bitbucket's spec wants; git's plain diff of the two.
    expect(asked.map((url) => url.pathname)).toEqual([
      `/2.0/repositories/alice/demo/diffstat/${after}..${before}`,
    ]);
    expect(asked[0]?.searchParams.get('topic')).toBe('false');
  });

  it('reads every page of a long diffstat, and stops past 3,000 files', async () => {
    const before = double.commit('alice/demo', 'main', { 'a.txt': '5' });
    const files = manyFiles('many', 1200);
    const after = double.commit('alice/demo', 'main', files);
    let from = recorder.urls.length;
    expect(await scm.changedFiles?.(alice, repo, { kind: 'push', before, after })).toEqual({
      known: true,
      files: Object.keys(files).sort(),
    });
    // Bitbucket's diffstat page: 500 entries.
    expect(pagesAsked(from)).toEqual(['1', '2', '3']);
    const huge = double.commit('alice/demo', 'main', manyFiles('huge', 3001));
    from = recorder.urls.length;
    expect(await scm.changedFiles?.(alice, repo, { kind: 'push', before: after, after: huge })).toEqual({
      known: false,
      reason: 'Bitbucket lists more than 3000 changed files of the push; svc reads no more',
    });
    expect(pagesAsked(from)).toHaveLength(7);
  });

  it('does not claim to know a new branch’s files, a vanished commit’s, or a diffstat that timed out', async () => {
    const before = double.commit('alice/demo', 'main', { 'a.txt': '3' });
    const after = double.commit('alice/demo', 'main', { 'a.txt': '4' });
    expect(await scm.changedFiles?.(alice, repo, { kind: 'push', before: '0'.repeat(40), after })).toEqual({
      known: false,
      reason: 'the push created the branch: there is no earlier commit to compare with',
    });
    expect(await scm.changedFiles?.(alice, repo, { kind: 'push', before: 'f'.repeat(40), after })).toEqual({
      known: false,
      reason: `Bitbucket cannot compare ffffffffffff with ${after.slice(0, 12)} (a forced push's earlier commit may be gone)`,
    });
    double.fail({ path: '/diffstat/', answer: 555, times: 1 });
    expect(await scm.changedFiles?.(alice, repo, { kind: 'push', before, after })).toEqual({
      known: false,
      reason: 'Bitbucket timed out computing the diffstat of the push',
    });
  });

  it('reads every page of a pull request’s diffstat, where Bitbucket redirects, renames with both names', async () => {
    double.commit('alice/demo', 'main', { 'base.txt': 'b', 'rename-me.txt': 'r' });
    const files = manyFiles('pkg', 1100);
    double.commit('alice/demo', 'feature', { ...files, 'rename-me.txt': null, 'renamed.txt': 'r' });
    const { id } = await double.pullRequest('alice/demo', 'feature', receiver.url);
    const from = recorder.urls.length;
    expect(await scm.changedFiles?.(alice, repo, { kind: 'pull', number: id })).toEqual({
      known: true,
      files: [...Object.keys(files), 'rename-me.txt', 'renamed.txt'].sort(),
    });
    expect(recorder.urls[from]?.pathname).toBe(`/2.0/repositories/alice/demo/pullrequests/${id}/diffstat`);
    expect(pagesAsked(from)).toEqual(['1', '2', '3']);
  });
});
