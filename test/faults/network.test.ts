/**
 * Fault 4 of issue 15: trouble on the network between a real Docker runner and the server while a
 * step streams 3,000 numbered lines. The runner reaches the server through a TCP proxy that the
 * test makes hold every byte for a while (stall), close connections (FIN) and reset them (RST),
 * including right after the server stored a request and before its answer reached the runner.
 * svc promises: lost answers make the runner send again, and the server takes each thing once —
 * log batches are deduplicated by number (the stored log is exactly 1 … 3000, no position twice),
 * step and stage updates are not applied twice (every step and the stage end with the versions,
 * i.e. the number of writes, of the same pipeline run undisturbed), and the build completes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerForTests } from '../../src/engines/docker/testing.case.js';
import { waitFor } from '../e2e/system.js';
import { httpRequest } from '../support/tcp-proxy.js';
import {
  CrashFrame,
  duplicates,
  numbered,
  pipeline,
  printed,
  sequence,
  type ApiBuild,
  type ApiStep,
} from './crash-frame.js';

const docker = await dockerForTests(['local/busybox']);
const LINES = 3000;

/** `count` streams for ~15 s; `after` runs once it ended, so step updates follow the faults. */
const file = (lines: number): string =>
  pipeline({ count: [numbered(lines, 10, 0.05)], after: ['echo after'] });

const BATCH = /\{"batch":(\d+),"lines"/;

/** What the server stored of a build's stage and steps, in a form two builds can be compared by. */
function writes(build: ApiBuild): { stage: number | undefined; steps: [string, string, number][] } {
  const stage = build.stages?.[0];
  return { stage: stage?.version, steps: (stage?.steps ?? []).map((s) => [s.name, s.status, s.version]) };
}

/** Resolves with `work`'s value, or rejects naming `what` after `ms`. */
async function within<T>(what: string, ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe.skipIf(docker.skip)('faults: the network between runner and server stalls, drops and resets', () => {
  let frame: CrashFrame;

  beforeAll(async () => {
    frame = await CrashFrame.start();
    frame.runner(`faults-net-${process.pid}`);
  }, 60_000);
  afterAll(async () => {
    await frame?.stop();
  });

  it('retries what was lost, stores every line and every update once, and completes the build', async () => {
    // The same pipeline undisturbed: how many writes each step and the stage take.
    await frame.push({ '.drone.yml': file(30) }, 'undisturbed');
    const baseline = await frame.buildWhen(1);
    expect(baseline.status).toBe('success');

    const proxy = frame.runnerProxy;
    // Answers lost, armed before the build starts: each of these requests is stored by the server,
    // then its connection is reset or closed before the answer reaches the runner, which must send
    // it again and be answered with what is stored — not have it applied twice.
    const cutAfterAnswer = async (pattern: RegExp, how: 'reset' | 'drop'): Promise<string> => {
      const caught = await proxy.hold(pattern, 'answer');
      await caught.answered;
      caught[how]();
      return caught.matched;
    };
    const step = /\/rpc\/v2\/step\/\d+/;
    const stage = /\/rpc\/v2\/stage\/\d+/;
    const ends = Promise.all([
      cutAfterAnswer(httpRequest('PUT', stage, '"status":"running"'), 'reset'),
      cutAfterAnswer(httpRequest('PUT', step, '"status":"running"'), 'drop'),
      cutAfterAnswer(httpRequest('POST', /\/rpc\/v2\/step\/\d+\/logs\/upload/), 'reset'),
      cutAfterAnswer(httpRequest('PUT', step, '"status":"success"'), 'reset'),
      cutAfterAnswer(httpRequest('PUT', stage, '"status":"success"'), 'drop'),
    ]);

    // 0. The answer that hands the stage to the runner is lost: the runner's poll under way is cut
    // so that its next one is caught, and its answer — the stage, which the server took for the
    // runner (svc's runners claim as they ask) — reset once the server sent it. The server cannot
    // tell: its heartbeat watchdog finds the stage taken and never started, and queues it again.
    const offer = proxy.hold(httpRequest('POST', /\/rpc\/v2\/stage/), 'answer');
    proxy.drop();
    const poll = await within('the runner to ask for work again', 15_000, offer);
    const started = Date.now();
    const sha = await frame.push({ '.drone.yml': file(LINES) }, 'through a bad network');
    await poll.answered;
    poll.reset();
    await frame.buildWhen(2, (b) => b.stages?.[0]?.steps?.[0]?.status === 'running', 90_000);
    const offeredAgainMs = Date.now() - started;

    // 1. A batch stored, its acknowledgement lost to a reset: the runner sends it again.
    const resent: number[] = [];
    for (const how of ['reset', 'drop'] as const) {
      const held = await proxy.hold(BATCH, 'answer');
      await held.answered;
      const batch = Number([...held.matched.matchAll(new RegExp(BATCH, 'g'))].at(-1)?.[1]);
      const again = proxy.watch(new RegExp(`\\{"batch":${batch},"lines"`));
      held[how]();
      await within(`batch ${batch} sent again`, 15_000, again);
      resent.push(batch);
      // 2. Between the two: nothing moves for 3 s, both ways, on every connection.
      if (how === 'reset') await proxy.stall(3_000);
    }
    // 3. Every connection closed at once; once the runner is back, every one reset.
    const dropped = proxy.drop();
    await waitFor(
      'the runner to reconnect',
      () => Promise.resolve(proxy.open > 0 ? true : undefined),
      10_000,
    );
    const reset = proxy.reset();
    // All of that happened while `count` still printed (else the step is too short for this test).
    expect((await frame.build(2))?.stages?.[0]?.steps?.[0]?.status).toBe('running');

    const done = await frame.buildWhen(2, undefined, 120_000);
    const tookMs = Date.now() - started;
    // Every armed request was caught, and its answer lost.
    expect(await within('the requests whose answers were lost', 30_000, ends)).toHaveLength(5);

    expect(done.status, JSON.stringify(done)).toBe('success');
    const log = await frame.log(done, 'count');
    expect(printed(log)).toEqual(sequence(LINES));
    expect(duplicates(log)).toEqual({ positions: 0, numbers: 0 });
    expect(printed(await frame.log(done, 'after'))).toEqual(['after']);

    // No update applied twice: the same writes as undisturbed, each step once started and ended;
    // the stage two more: given back by the watchdog, taken again.
    const undisturbed = writes(baseline);
    expect(writes(done)).toEqual({ ...undisturbed, stage: (undisturbed.stage ?? 0) + 2 });
    const steps = done.stages?.[0]?.steps ?? [];
    const [count, after] = [steps[0], steps[1]] as [ApiStep, ApiStep];
    expect(steps.map((s) => s.name)).toEqual(['count', 'after']);
    expect(count.started).toBeGreaterThan(0);
    expect(count.stopped).toBeGreaterThanOrEqual(count.started);
    expect(after.started).toBeGreaterThanOrEqual(count.stopped);
    expect(after.stopped).toBeGreaterThanOrEqual(after.started);
    expect(steps.every((s) => s.exit_code === 0)).toBe(true);
    await frame.statusesWhen(sha, 'success');

    console.info(
      `faults (network): the claimed stage's answer lost, the stage running again ${offeredAgainMs} ms after the push; ` +
        `batches ${resent.join(', ')} re-sent after lost answers, a 3 s stall, ` +
        `${dropped} connections closed and ${reset} reset, the answers to the stage's running and end reports, the step's, and an upload lost; ` +
        `${printed(log).length} lines, 0 duplicates, versions ${JSON.stringify(writes(done))} (as undisturbed, the stage's 2 more: given back, taken again); ` +
        `build done in ${tookMs} ms`,
    );
  }, 240_000);
});
