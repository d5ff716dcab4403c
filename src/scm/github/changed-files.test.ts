import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGitHubDouble, type GitHubDouble } from '../../../test/doubles/github/index.js';
import type { ScmProvider, ScmToken } from '../../core/scm.js';
import { startReceiver, token } from '../provider-harness.case.js';
import { createGitHubProvider } from './index.js';

/** GitHub's changed files of a push (compare) and of a pull request (its files, every page), on the double. */
describe('GitHub changedFiles', () => {
  let double: GitHubDouble;
  let scm: ScmProvider;
  let alice: ScmToken;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const repo = { namespace: 'alice', name: 'demo' };

  beforeAll(async () => {
    double = await startGitHubDouble({ enterprise: true });
    receiver = await startReceiver();
    alice = token(double.addUser({ login: 'alice' }).token);
    double.addRepo({ owner: 'alice', name: 'demo' });
    scm = createGitHubProvider({
      clientId: double.clientId,
      clientSecret: double.clientSecret,
      scopes: ['repo'],
      server: double.url,
      skipVerify: false,
      gitAlwaysAuth: false,
      gitUsername: null,
      gitPassword: null,
    });
    await scm.createHook(alice, repo, { url: receiver.url, secret: 'shh' });
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => receiver.server.close(() => resolve()));
    await double.close();
  });

  it('lists a push’s files, added and modified in every commit between its two', async () => {
    const before = double.commit('alice/demo', 'main', { 'a.txt': '1', 'docs/b.md': 'b', 'old.txt': 'x' });
    double.commit('alice/demo', 'main', { 'a.txt': '1', 'docs/b.md': 'b', 'old.txt': 'x', 'skip.txt': 's' });
    const after = double.commit('alice/demo', 'main', { 'a.txt': '2', 'docs/b.md': 'b', 'src/new.go': 'n' });
    expect(await scm.changedFiles?.(alice, repo, { kind: 'push', before, after })).toEqual({
      known: true,
      // The double's commits add and change files (none removes one): skip.txt came in between.
      files: ['a.txt', 'skip.txt', 'src/new.go'],
    });
  });

  it('does not claim to know a new branch’s, a vanished commit’s, or more than the 300 files compare lists', async () => {
    const after = double.commit('alice/demo', 'main', { 'a.txt': '3' });
    const zero = '0'.repeat(40);
    expect(await scm.changedFiles?.(alice, repo, { kind: 'push', before: zero, after })).toEqual({
      known: false,
      reason: 'the push created the branch: there is no earlier commit to compare with',
    });
    const gone = await scm.changedFiles?.(alice, repo, { kind: 'push', before: 'f'.repeat(40), after });
    expect(gone).toMatchObject({
      known: false,
      reason: expect.stringMatching(/cannot compare ffffffffffff/) as unknown,
    });
    const many = Object.fromEntries(Array.from({ length: 301 }, (_, i) => [`f${i}.txt`, 'x']));
    const big = double.commit('alice/demo', 'main', many);
    expect(await scm.changedFiles?.(alice, repo, { kind: 'push', before: after, after: big })).toEqual({
      known: false,
      reason: 'GitHub’s compare lists at most 300 changed files'.replace('’', "'"),
    });
  });

  it('reads every page of a pull request’s files', async () => {
    double.commit('alice/demo', 'main', { 'base.txt': 'b' });
    const files = Object.fromEntries(
      Array.from({ length: 250 }, (_, i) => [`pkg/f${String(i).padStart(3, '0')}.go`, 'x']),
    );
    double.commit('alice/demo', 'feature', { 'base.txt': 'b', ...files });
    const pr = await double.pullRequest('alice/demo', 'feature', receiver.url);
    const before = double.requests().length;
    const answer = await scm.changedFiles?.(alice, repo, { kind: 'pull', number: pr.number });
    expect(answer).toMatchObject({ known: true });
    expect(answer?.known === true ? answer.files : []).toEqual(Object.keys(files).sort());
    const pages = double
      .requests()
      .slice(before)
      .map((request) => new URL(request.url, double.url).searchParams.get('page') ?? '1');
    expect(pages).toEqual(['1', '2', '3']);
  });
});
