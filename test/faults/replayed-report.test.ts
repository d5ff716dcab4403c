/**
 * The fix that test/faults/server-kill.test.ts (d) found, pinned down in one process: a runner that
 * repeats the report that ended its stage (it never got the answer, because the server died while
 * telling the listener — posting the commit status) makes the server tell the listener again. The
 * build's new status is already stored by then, so nothing else would ever tell it.
 */
import { describe, expect, it } from 'vitest';
import type { WireStage } from '../../src/runner/client/wire/index.js';
import { json, queueBuild } from '../rpc/support/harness.js';
import { useServers } from '../rpc/support/fresh.js';

describe('a repeated stage report', () => {
  const server = useServers();

  it('tells the listener of the build again, with what is stored, and changes nothing', async () => {
    const s = await server();
    const { build, stages } = await queueBuild(s.store, [{ name: 'a' }]);
    const id = stages[0]!.id;
    const accepted = await json<WireStage>(await s.call('POST', `/rpc/v2/stage/${id}?machine=r1`));
    const report = { ...accepted, status: 'success', started: 100, stopped: 200 };
    const ended = await json<WireStage>(await s.call('PUT', `/rpc/v2/stage/${id}`, report));
    const heardBefore = s.heard.length;
    expect(s.heard.at(-1)?.build.status).toBe('success');

    const replay = await json<WireStage>(await s.call('PUT', `/rpc/v2/stage/${id}`, report));
    expect(replay.version).toBe(ended.version);
    expect(s.heard.slice(heardBefore).map((h) => [h.build.id, h.build.status])).toEqual([
      [build.id, 'success'],
    ]);
    // Told again, not written again: the build and the stage are as the first report left them.
    const stored = await s.store.builds.find(build.id);
    expect(stored?.version).toBe(s.heard.at(-1)?.build.version);
    expect((await s.store.stages.find(id))?.version).toBe(ended.version);
  });
});
