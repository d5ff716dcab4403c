import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGogsDouble, type GogsDouble } from '../../../test/doubles/gogs/index.js';
import type { ScmChange, ScmProvider } from '../../core/scm.js';
import { recordingFetch, token } from '../provider-harness.case.js';
import { createGogsProvider } from './index.js';

/** Gogs has no API that lists a change's files: svc says so for every change, without asking Gogs. */
describe('Gogs changedFiles', () => {
  let double: GogsDouble;
  let scm: ScmProvider;
  const recorder = recordingFetch();

  beforeAll(async () => {
    double = await startGogsDouble();
    scm = createGogsProvider({
      server: double.url,
      skipVerify: false,
      gitAlwaysAuth: false,
      gitUsername: null,
      gitPassword: null,
      fetch: recorder.fetch,
    });
  });
  afterAll(() => double.close());

  it('answers every push and pull request not known, with the reason', async () => {
    const alice = token(double.addUser({ login: 'alice', password: 'pw' }).token);
    double.addRepo({ owner: 'alice', name: 'demo', defaultBranch: 'main' });
    const before = double.commit('alice/demo', 'main', { 'a.txt': '1' });
    const after = double.commit('alice/demo', 'main', { 'a.txt': '2' });
    const changes: ScmChange[] = [
      { kind: 'push', before, after },
      { kind: 'push', before: '0'.repeat(40), after },
      { kind: 'pull', number: 1 },
    ];
    for (const change of changes)
      expect(await scm.changedFiles?.(alice, { namespace: 'alice', name: 'demo' }, change)).toEqual({
        known: false,
        reason:
          "Gogs' API has no compare or changed-files endpoint (its commits list no files, and it has no pull request API)",
      });
    expect(recorder.urls).toEqual([]);
  });
});
