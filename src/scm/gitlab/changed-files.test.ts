import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGitLabDouble, type GitLabDouble } from '../../../test/doubles/gitlab/index.js';
import type { ScmProvider, ScmToken } from '../../core/scm.js';
import { recordingFetch, startReceiver, token } from '../provider-harness.case.js';
import { createGitLabProvider } from './index.js';

/** Files named f000.txt, f001.txt, … under `dir`, each with its own content. */
const manyFiles = (dir: string, count: number) =>
  Object.fromEntries(
    Array.from({ length: count }, (_, i) => [`${dir}/f${String(i).padStart(4, '0')}.txt`, `${dir}${i}`]),
  );

/** GitLab's changed files of a push (compare) and of a merge request (its diffs, every page), on the double. */
describe('GitLab changedFiles', () => {
  let double: GitLabDouble;
  let scm: ScmProvider;
  let alice: ScmToken;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const recorder = recordingFetch();
  const repo = { namespace: 'alice', name: 'demo' };

  beforeAll(async () => {
    double = await startGitLabDouble();
    receiver = await startReceiver();
    alice = token(double.addUser({ login: 'alice' }).token);
    double.addRepo({ owner: 'alice', name: 'demo' });
    double.commit('alice/demo', 'main', { 'a.txt': '1' });
    scm = createGitLabProvider({
      server: double.url,
      clientId: double.clientId,
      clientSecret: double.clientSecret,
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

  /** The `page` of every request svc made to a path ending in `suffix` since `from`. */
  const pagesAsked = (from: number, suffix: string) =>
    recorder.urls
      .slice(from)
      .filter((url) => url.pathname.endsWith(suffix))
      .map((url) => url.searchParams.get('page'));

  it('lists a push’s files across its commits, a rename’s both names, in one compare of the two commits', async () => {
    const before = double.commit('alice/demo', 'main', { 'a.txt': '1', 'docs/b.md': 'b', 'old.txt': 'o' });
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
    expect(asked.map((url) => url.pathname)).toEqual(['/api/v4/projects/alice%2Fdemo/repository/compare']);
    expect(Object.fromEntries(asked[0]?.searchParams ?? [])).toEqual({
      from: before,
      to: after,
      straight: 'true',
    });
  });

  it('does not claim to know a new branch’s files, a vanished commit’s, or past GitLab’s diff limits', async () => {
    const after = double.commit('alice/demo', 'main', { 'a.txt': '3' });
    for (const before of ['0'.repeat(40), ''])
      expect(await scm.changedFiles?.(alice, repo, { kind: 'push', before, after })).toEqual({
        known: false,
        reason: 'the push created the branch: there is no earlier commit to compare with',
      });
    expect(await scm.changedFiles?.(alice, repo, { kind: 'push', before: 'f'.repeat(40), after })).toEqual({
      known: false,
      reason: `GitLab cannot compare ffffffffffff with ${after.slice(0, 12)} (a forced push's earlier commit may be gone)`,
    });
    const big = double.commit('alice/demo', 'main', manyFiles('big', 1001));
    expect(await scm.changedFiles?.(alice, repo, { kind: 'push', before: after, after: big })).toEqual({
      known: false,
      reason:
        "GitLab's compare passed its diff limits or timed out: it listed 1000 changed files and stopped",
    });
  });

  it('reads every page of a merge request’s diffs, renames with both names', async () => {
    double.commit('alice/demo', 'main', { 'base.txt': 'b', 'rename-me.txt': 'r' });
    const files = manyFiles('pkg', 250);
    double.commit('alice/demo', 'feature', { ...files, 'rename-me.txt': null, 'renamed.txt': 'r' });
    const { iid } = await double.mergeRequest('alice/demo', 'feature', receiver.url);
    const from = recorder.urls.length;
    const answer = await scm.changedFiles?.(alice, repo, { kind: 'pull', number: iid });
    expect(answer).toEqual({
      known: true,
      files: [...Object.keys(files), 'rename-me.txt', 'renamed.txt'].sort(),
    });
    // 252 entries (the rename is one) at GitLab's largest page, 100.
    expect(pagesAsked(from, '/diffs')).toEqual(['1', '2', '3']);
    expect(recorder.urls.at(-1)?.searchParams.get('per_page')).toBe('100');
  });

  it('does not claim to know a merge request past GitLab’s diff limits', async () => {
    double.commit('alice/demo', 'huge', manyFiles('huge', 1001));
    const { iid } = await double.mergeRequest('alice/demo', 'huge', receiver.url);
    const from = recorder.urls.length;
    expect(await scm.changedFiles?.(alice, repo, { kind: 'pull', number: iid })).toEqual({
      known: false,
      reason: `merge request !${iid} changes more files than GitLab's diff limits let it list (1000+)`,
    });
    // Its count says so: no page of its diffs is read.
    expect(pagesAsked(from, '/diffs')).toEqual([]);
  });
});
