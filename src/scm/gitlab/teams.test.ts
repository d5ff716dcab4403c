import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGitLabDouble, type GitLabDouble } from '../../../test/doubles/gitlab/index.js';
import type { ScmProvider, ScmToken } from '../../core/scm.js';
import { token } from '../provider-harness.case.js';
import { createGitLabProvider } from './index.js';

/** GitLab's teams for deployment approvers: the user's subgroups, and a subgroup by its full path. */
describe('GitLab teams', () => {
  let double: GitLabDouble;
  let scm: ScmProvider;
  let alice: ScmToken;
  let bob: ScmToken;

  beforeAll(async () => {
    double = await startGitLabDouble();
    alice = token(double.addUser({ login: 'alice', orgs: ['acme', 'acme/release', 'acme/eng/ops'] }).token);
    bob = token(double.addUser({ login: 'bob', orgs: ['acme'] }).token);
    scm = createGitLabProvider({
      server: double.url,
      clientId: double.clientId,
      clientSecret: double.clientSecret,
      skipVerify: false,
      gitAlwaysAuth: false,
      gitUsername: null,
      gitPassword: null,
    });
  });
  afterAll(async () => {
    expect(double.unknownCalls()).toEqual([]);
    await double.close();
  });

  it('lists the subgroups a user belongs to, by id, and not the top-level groups', async () => {
    const teams = (await scm.teams?.(alice)) ?? [];
    expect(teams.map(({ org, slug }) => `${org}/${slug}`)).toEqual(['acme/release', 'acme/eng/ops']);
    expect(teams.every((team) => /^\d+$/.test(team.uid))).toBe(true);
    expect(await scm.teams?.(bob)).toEqual([]);
  });

  it('finds a subgroup by org and slug with the same id; one the user cannot see is NOT_FOUND', async () => {
    const [release] = (await scm.teams?.(alice)) ?? [];
    expect(await scm.findTeam?.(alice, 'acme', 'release')).toEqual(release);
    await expect(scm.findTeam?.(bob, 'acme', 'release')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(scm.findTeam?.(alice, 'acme', 'nobody')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
