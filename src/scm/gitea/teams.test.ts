import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGiteaDouble, type GiteaDouble } from '../../../test/doubles/gitea/index.js';
import type { ScmProvider, ScmToken } from '../../core/scm.js';
import { token } from '../provider-harness.case.js';
import { createGiteaProvider } from './index.js';

/** Gitea's teams for deployment approvers: the user's teams, and an organization's team by name. */
describe('Gitea teams', () => {
  let double: GiteaDouble;
  let scm: ScmProvider;
  let alice: ScmToken;
  let bob: ScmToken;

  beforeAll(async () => {
    double = await startGiteaDouble();
    alice = token(double.addUser({ login: 'alice', orgs: ['acme'] }).token);
    bob = token(double.addUser({ login: 'bob' }).token);
    double.addTeam('acme', 'Release', ['alice']);
    // More teams than one page of 50, so that finding one pages through the organization's.
    for (let i = 0; i < 60; i++) double.addTeam('acme', `team-${i}`, []);
    double.addTeam('acme', 'Ops', ['bob']);
    scm = createGiteaProvider({
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

  it('lists the user’s teams with their organization and id', async () => {
    expect(await scm.teams?.(alice)).toEqual([
      { org: 'acme', slug: 'Release', uid: expect.stringMatching(/^\d+$/) as unknown },
    ]);
  });

  it('finds a team by name without case, across pages, with the same id; outsiders cannot', async () => {
    const [release] = (await scm.teams?.(alice)) ?? [];
    expect(await scm.findTeam?.(alice, 'acme', 'release')).toEqual(release);
    expect(await scm.findTeam?.(alice, 'acme', 'ops')).toMatchObject({ slug: 'Ops' });
    await expect(scm.findTeam?.(alice, 'acme', 'nobody')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(scm.findTeam?.(bob, 'acme', 'ops')).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });
});
