import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../api/harness.js';
import { enable, loginAs, tokenOf } from '../../api/client.js';
import { LINT_AND_UNIT } from '../../api/runner-flow.js';
import { clientFor, jsonOf, type Svc } from './run.js';

interface Build {
  number: number;
  status: string;
  stages: { number: number; status: string; deployment?: { environment: string; approved: boolean } }[];
}

describe('svc environment … and svc build approve --comment against a real server', () => {
  let h: Harness;
  let octocat: Svc;
  let hubot: Svc;

  beforeAll(async () => {
    h = await startHarness();
    h.github.addUser({ login: 'octocat' });
    h.github.addUser({ login: 'hubot' });
    h.github.addRepo({ owner: 'octocat', name: 'app', admins: ['octocat'], writers: ['hubot'] });
    h.github.commit('octocat/app', 'main', { '.drone.yml': LINT_AND_UNIT }, 'first');
    const session = await loginAs(h, 'octocat');
    await enable(h, session, 'octocat/app');
    octocat = clientFor(h, await tokenOf(h, session));
    hubot = clientFor(h, await tokenOf(h, await loginAs(h, 'hubot')));
  });
  afterAll(() => h.close());

  it('adds, lists, shows, changes and removes environments', async () => {
    const added = await octocat(
      'environment',
      'add',
      'octocat/app',
      'production',
      '--approvers',
      'octocat, hubot',
      '--approvals',
      '2',
      '--branches',
      'main,release/*',
      '--timeout',
      '120',
    );
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/Approvers:\s+octocat, hubot/);
    const listed = await octocat('environment', 'ls', 'octocat/app');
    expect(listed.stdout.split('\n')[0]).toMatch(/^NAME\s+APPROVALS\s+APPROVERS\s+BRANCHES\s+TIMEOUT$/);
    expect(listed.stdout).toMatch(/production\s+2\s+octocat, hubot\s+main, release\/\*\s+120m/);
    const changed = await octocat('environment', 'update', 'octocat/app', 'production', '--timeout', '60');
    expect(changed.stdout).toMatch(/Timeout:\s+60 minutes/);
    const refused = await hubot('environment', 'add', 'octocat/app', 'staging');
    expect(refused.code).toBe(1);
    await octocat('environment', 'add', 'octocat/app', 'staging', '--approvals', '0');
    expect((await octocat('environment', 'rm', 'octocat/app', 'staging')).stdout).toBe(
      'environment staging deleted\n',
    );
    const missing = await octocat('environment', 'info', 'octocat/app', 'staging');
    expect(missing.code).toBe(1);
    const secret = await octocat(
      'secret',
      'add',
      'octocat/app',
      '--name',
      'DEPLOY_KEY',
      '--data',
      'k',
      '--environment',
      'production',
    );
    expect(secret.stdout).toMatch(/Environment:\s+production/);
  });

  it('approves a promotion once per person with a comment, and lists the decisions', async () => {
    const first = jsonOf<Build>(await octocat('build', 'create', 'octocat/app', '--format', 'json'));
    const promoted = jsonOf<Build>(
      await octocat(
        'build',
        'promote',
        'octocat/app',
        String(first.number),
        'production',
        '--format',
        'json',
      ),
    );
    expect(promoted.status).toBe('blocked');
    const number = String(promoted.number);
    // Both stages deploy to production: one approval covers them.
    const mine = jsonOf<Build>(
      await octocat('build', 'approve', 'octocat/app', number, '--comment', 'checked', '--format', 'json'),
    );
    expect(mine.status).toBe('blocked');
    const again = await octocat('build', 'approve', 'octocat/app', number);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('approved the deployment to production already');
    const theirs = jsonOf<Build>(
      await hubot('build', 'approve', 'octocat/app', number, '--comment', 'ship it', '--format', 'json'),
    );
    expect(theirs.stages.map((s) => [s.status, s.deployment?.approved])).toEqual([
      ['pending', true],
      ['pending', true],
    ]);
    const decisions = await octocat('build', 'approvals', 'octocat/app', number);
    expect(decisions.stdout.split('\n')[0]).toMatch(/^STAGE\s+WHO\s+DECISION\s+WHEN\s+COMMENT$/);
    expect(decisions.stdout).toMatch(/1\s+octocat\s+approve\s+.*checked/);
    expect(decisions.stdout).toMatch(/1\s+hubot\s+approve\s+.*ship it/);
  });
});
