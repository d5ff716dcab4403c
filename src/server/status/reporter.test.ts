import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newBuild } from '../../store/cases/fixtures.case.js';
import { githubProvider, triggerFixture, type TriggerFixture } from '../trigger/testing.case.js';
import { CommitStatusReporter } from './reporter.js';

describe('CommitStatusReporter', () => {
  let world: TriggerFixture;
  beforeEach(async () => {
    world = await triggerFixture();
  });
  afterEach(() => world.close());

  it('posts each state once, and keeps only the last final states once builds are done', async () => {
    const sha = world.github.commit('octocat/app', 'main', { 'README.md': 'hi\n' }, 'status');
    const { build } = await world.store.builds.create(newBuild(world.repo.id, { after: sha }), []);
    const reporter = new CommitStatusReporter({
      provider: githubProvider(world.github),
      users: world.store.users,
      status: { disabled: false, name: 'continuous-integration/svc' },
      address: { proto: 'https', host: 'ci.example.com' },
      logger: pino({ level: 'silent' }),
    });
    const report = (status: 'running' | 'success') =>
      reporter.buildUpdated({ repo: world.repo, build: { ...build, status }, stages: [] });

    await report('running');
    await report('running');
    expect(world.github.statuses('octocat/app', sha).map((s) => s.state)).toEqual(['pending']);
    expect(reporter.sizes().posted_builds).toBe(1);

    await report('success');
    // A final report repeated (a runner retrying it, a replay re-telling the listeners) is not posted again.
    await report('success');
    expect(world.github.statuses('octocat/app', sha).map((s) => s.state)).toEqual(['pending', 'success']);
    // A done build changes no more (a restart is a new build): a server that runs for months must
    // not keep one entry per build it ever reported, only the last few hundred final states.
    expect(reporter.sizes()).toEqual({ posted_builds: 0, done_builds: 1, locked_builds: 0 });
    for (let i = 1; i <= 300; i++)
      await reporter.buildUpdated({
        repo: world.repo,
        build: { ...build, id: build.id + i, status: 'success' },
        stages: [],
      });
    expect(reporter.sizes()).toEqual({ posted_builds: 0, done_builds: 256, locked_builds: 0 });
  });
});
