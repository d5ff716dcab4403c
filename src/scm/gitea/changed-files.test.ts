import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGiteaDouble, type GiteaDouble } from '../../../test/doubles/gitea/index.js';
import type { ScmProvider, ScmToken } from '../../core/scm.js';
import { recordingFetch, startReceiver, token } from '../provider-harness.case.js';
import { createGiteaProvider, type GiteaOptions } from './index.js';

/** Files named f000.txt, f001.txt, … under `dir`, each with its own content. */
const manyFiles = (dir: string, count: number) =>
  Object.fromEntries(
    Array.from({ length: count }, (_, i) => [`${dir}/f${String(i).padStart(3, '0')}.txt`, `${dir}${i}`]),
  );

/** A server whose compare lists commits without their files: the double's answer, `files` taken out. */
const withoutCompareFiles: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  if (!String(input instanceof Request ? input.url : input).includes('/compare/')) return response;
  const body = (await response.json()) as { commits: Record<string, unknown>[] };
  return Response.json({ ...body, commits: body.commits.map(({ files: _files, ...commit }) => commit) });
};

/** Gitea's changed files of a push (compare) and of a pull request (its files, every page), on the double. */
describe('Gitea changedFiles', () => {
  let double: GiteaDouble;
  let scm: ScmProvider;
  let options: GiteaOptions;
  let alice: ScmToken;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const recorder = recordingFetch();
  const repo = { namespace: 'alice', name: 'demo' };

  beforeAll(async () => {
    double = await startGiteaDouble();
    receiver = await startReceiver();
    alice = token(double.addUser({ login: 'alice' }).token);
    double.addRepo({ owner: 'alice', name: 'demo' });
    double.commit('alice/demo', 'main', { 'a.txt': '1' });
    options = {
      server: double.url,
      clientId: double.clientId,
      clientSecret: double.clientSecret,
      skipVerify: false,
      gitAlwaysAuth: false,
      gitUsername: null,
      gitPassword: null,
    };
    scm = createGiteaProvider({ ...options, fetch: recorder.fetch });
    await scm.createHook(alice, repo, { url: receiver.url, secret: 'shh' });
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => receiver.server.close(() => resolve()));
    expect(double.unknownCalls()).toEqual([]);
    await double.close();
  });

  it('lists the files every pushed commit touched, in one compare', async () => {
    const before = double.commit('alice/demo', 'main', { 'flip.txt': 'x', 'old.txt': 'o' });
    double.commit('alice/demo', 'main', { 'skip.txt': 's', 'flip.txt': 'y' });
    const after = double.commit('alice/demo', 'main', {
      'a.txt': '2',
      'flip.txt': 'x',
      'old.txt': null,
      'moved/old.txt': 'o',
    });
    const from = recorder.urls.length;
    expect(await scm.changedFiles?.(alice, repo, { kind: 'push', before, after })).toEqual({
      known: true,
      // flip.txt changed and changed back: its commits touched it, so it is listed.
      files: ['a.txt', 'flip.txt', 'moved/old.txt', 'old.txt', 'skip.txt'],
    });
    expect(recorder.urls.slice(from).map((url) => `${url.pathname}${url.search}`)).toEqual([
      `/api/v1/repos/alice/demo/compare/${before}...${after}?verification=false`,
    ]);
  });

  it('does not claim to know a new branch’s files, a vanished commit’s, or a compare without them', async () => {
    const before = double.commit('alice/demo', 'main', { 'a.txt': '3' });
    const after = double.commit('alice/demo', 'main', { 'a.txt': '4' });
    expect(await scm.changedFiles?.(alice, repo, { kind: 'push', before: '0'.repeat(40), after })).toEqual({
      known: false,
      reason: 'the push created the branch: there is no earlier commit to compare with',
    });
    expect(await scm.changedFiles?.(alice, repo, { kind: 'push', before: 'f'.repeat(40), after })).toEqual({
      known: false,
      reason: `Gitea cannot compare ffffffffffff with ${after.slice(0, 12)} (a forced push's earlier commit may be gone)`,
    });
    // A server before 1.22 answers the compare 404 while it has both commits.
    double.fail({ path: '/compare/', answer: 404, times: 1, body: '{"message":"Not Found"}' });
    expect(await scm.changedFiles?.(alice, repo, { kind: 'push', before, after })).toEqual({
      known: false,
      reason: 'this Gitea server has no compare API (Gitea 1.22 added it)',
    });
    const bare = createGiteaProvider({ ...options, fetch: withoutCompareFiles });
    expect(await bare.changedFiles?.(alice, repo, { kind: 'push', before, after })).toEqual({
      known: false,
      reason: "Gitea's compare does not list the files of the pushed commits",
    });
  });

  it('reads every page of a pull request’s files, a rename with both names', async () => {
    double.commit('alice/demo', 'main', { 'base.txt': 'b', 'rename-me.txt': 'r' });
    const files = manyFiles('pkg', 120);
    double.commit('alice/demo', 'feature', { ...files, 'rename-me.txt': null, 'renamed.txt': 'r' });
    const { number } = await double.pullRequest('alice/demo', 'feature', receiver.url);
    const from = recorder.urls.length;
    expect(await scm.changedFiles?.(alice, repo, { kind: 'pull', number })).toEqual({
      known: true,
      files: [...Object.keys(files), 'rename-me.txt', 'renamed.txt'].sort(),
    });
    // 121 files (the rename is one) at Gitea's largest page, 50.
    const pages = recorder.urls
      .slice(from)
      .map((url) => [url.searchParams.get('page'), url.searchParams.get('limit')]);
    expect(pages).toEqual([
      ['1', '50'],
      ['2', '50'],
      ['3', '50'],
    ]);
  });
});
