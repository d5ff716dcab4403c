import { describe, expect, it } from 'vitest';
import { json, queueBuild } from './support/harness.js';
import { plannedStep, takeAndStart } from './support/flow.js';
import { useServers } from './support/fresh.js';
import { eventually } from './support/runner.js';

describe('the reaper of zombie builds (SVC_CLEANUP_*)', () => {
  const server = useServers();

  it('ends a build still pending past its deadline as error', async () => {
    const s = await server({ reaper: { interval: 100, pendingDeadline: 300, runningDeadline: 60_000 } });
    const pending = await queueBuild(s.store, [{ name: 'a' }, { name: 'b', dependsOn: ['a'] }]);
    const ended = await eventually(
      async () => {
        const build = await s.store.builds.find(pending.build.id);
        return build?.status === 'error' ? build : undefined;
      },
      5_000,
      'the pending build to be reaped',
    );
    expect(ended.status).toBe('error');
    const stages = await s.store.stages.list(pending.build.id);
    // The first stage ends `error`; its dependent, which can no longer run, is skipped.
    expect(stages.map((stage) => stage.status)).toEqual(['error', 'skipped']);
    expect(stages[0]?.error).toBe(
      'the reaper ended it: pending for more than 300ms (SVC_CLEANUP_DEADLINE_PENDING)',
    );
    // Nothing is offered any more.
    expect((await s.store.queue.listQueued()).map((q) => q.stage.id)).not.toContain(stages[0]?.id);
  });

  it('ends a build running past its deadline, and its runner’s watch hears the build is done', async () => {
    const s = await server({ reaper: { interval: 100, pendingDeadline: 60_000, runningDeadline: 400 } });
    const { build, stages } = await queueBuild(s.store, [{ name: 'a' }]);
    await takeAndStart(s, stages[0]!.id, [plannedStep(1, 'x')]);
    const ended = await eventually(
      async () => {
        const found = await s.store.builds.find(build.id);
        return found?.status === 'error' ? found : undefined;
      },
      5_000,
      'the running build to be reaped',
    );
    expect(ended.status).toBe('error');
    expect((await s.store.stages.find(stages[0]!.id))?.error).toMatch(
      /^the reaper ended it: running for more than /,
    );
    expect(await json(await s.call('POST', `/rpc/v2/build/${build.id}/watch`))).toEqual({
      done: true,
      status: 'error',
    });
    expect((await s.call('POST', `/rpc/v2/stage/${stages[0]!.id}/heartbeat`)).status).toBe(409);
  });

  it('leaves builds within their deadlines alone', async () => {
    const s = await server({ reaper: { interval: 50, pendingDeadline: 60_000, runningDeadline: 60_000 } });
    const { build } = await queueBuild(s.store, [{ name: 'a' }]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await s.store.builds.find(build.id))?.status).toBe('pending');
  });
});
