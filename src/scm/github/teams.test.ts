import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGitHubDouble, type GitHubDouble } from '../../../test/doubles/github/index.js';
import type { ScmProvider, ScmToken } from '../../core/scm.js';
import { token } from '../provider-harness.case.js';
import { createGitHubProvider } from './index.js';

/** GitHub's teams for deployment approvers: the user's teams, and a team by slug; both by id. */
describe('GitHub teams', () => {
  let double: GitHubDouble;
  let scm: ScmProvider;
  let alice: ScmToken;
  let bob: ScmToken;

  beforeAll(async () => {
    double = await startGitHubDouble({ enterprise: true });
    alice = token(double.addUser({ login: 'alice', orgs: ['acme'] }).token);
    bob = token(double.addUser({ login: 'bob' }).token);
    double.addTeam('acme', 'release', ['alice']);
    double.addTeam('acme', 'ops', ['bob']);
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
  });
  afterAll(() => double.close());

  it('lists a user’s teams with their organization and id, and finds one by slug', async () => {
    const teams = (await scm.teams?.(alice)) ?? [];
    expect(teams).toEqual([{ org: 'acme', slug: 'release', uid: expect.stringMatching(/^\d+$/) as unknown }]);
    expect(await scm.findTeam?.(alice, 'acme', 'release')).toEqual(teams[0]);
  });

  it('keeps the id through a rename; a team of an organization one is not in is NOT_FOUND', async () => {
    const [before] = (await scm.teams?.(alice)) ?? [];
    double.renameTeam('acme', 'release', 'releasers');
    const [after] = (await scm.teams?.(alice)) ?? [];
    expect(after).toEqual({ org: 'acme', slug: 'releasers', uid: before?.uid });
    await expect(scm.findTeam?.(bob, 'acme', 'ops')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
