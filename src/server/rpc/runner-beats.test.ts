import { describe, expect, it } from 'vitest';
import { finish, takeAndStart, plannedStep } from '../../../test/rpc/support/flow.js';
import { useServers } from '../../../test/rpc/support/fresh.js';
import { json, queueBuild } from '../../../test/rpc/support/harness.js';

describe('runner heartbeats', () => {
  const server = useServers();

  it('remember the runner of a stage while it runs, and forget it when the stage is done', async () => {
    const s = await server();
    const holders = () => s.gauges.read().find((g) => g.name === 'rpc_runner_beats.stage_holders')?.size;
    const { stages } = await queueBuild(s.store, [{ name: 'build' }]);
    const running = await takeAndStart(s, stages[0]!.id, [plannedStep(1, 'test')]);
    const stepId = running.steps[0]!.id;
    const batch = await s.call('POST', `/rpc/v2/step/${stepId}/logs/batch`, {
      batch: 0,
      lines: [{ pos: 0, out: 'hi\n', time: 0 }],
    });
    expect(await json(batch)).toEqual({ batch: 0, duplicate: false });
    expect(holders()).toBe(1);
    await finish(s, running, 'success');
    // A server runs thousands of stages a day: none of them may stay behind once done.
    expect(holders()).toBe(0);
  });
});
