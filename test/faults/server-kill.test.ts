/**
 * Fault 2 of issue 15: the server SIGKILLed in every phase of a build, and started again on the
 * same SQLite file and port, while a real Docker runner goes on. For each phase svc promises: the
 * build completes after the restart, every log line is stored exactly once (the stored log is the
 * step's numbered sequence, no line lost, none twice), and the final commit status reaches GitHub.
 *
 * How each phase is reached: the runner talks to the server through a TCP proxy, and the server to
 * the GitHub double through another; the proxies hold one chosen request, or its answer, so the
 * kill lands at a known point of the protocol rather than at a moment guessed with sleeps.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerForTests } from '../../src/engines/docker/testing.case.js';
import {
  CrashFrame,
  duplicates,
  numbered,
  pipeline,
  printed,
  sequence,
  type ApiBuild,
} from './crash-frame.js';

const docker = await dockerForTests(['local/busybox']);
const RUNNER = `faults-kill-${process.pid}`;

/** What every phase checks once the build is over: one stage, its step, its log, GitHub's statuses. */
async function expectComplete(
  frame: CrashFrame,
  build: ApiBuild,
  sha: string,
  count: number,
): Promise<{ lines: number; statuses: string[] }> {
  expect(build.status, JSON.stringify(build)).toBe('success');
  const steps = build.stages?.[0]?.steps ?? [];
  expect(steps.map((s) => [s.name, s.status])).toEqual([['count', 'success']]);
  for (const step of steps) {
    expect(step.started).toBeGreaterThan(0);
    expect(step.stopped).toBeGreaterThanOrEqual(step.started);
  }
  const log = await frame.log(build, 'count');
  expect(printed(log)).toEqual(sequence(count));
  expect(duplicates(log)).toEqual({ positions: 0, numbers: 0 });
  const statuses = await frame.statusesWhen(sha, 'success');
  expect(statuses[0]).toBe('pending');
  return { lines: printed(log).length, statuses };
}

describe.skipIf(docker.skip)('faults: the server SIGKILLed in each phase of a build', () => {
  let frame: CrashFrame;

  beforeAll(async () => {
    frame = await CrashFrame.start();
    frame.runner(RUNNER);
  }, 60_000);
  afterAll(async () => {
    await frame?.stop();
  });

  it('(a) queued: the build waits in the database, and the polling runner gets it from the new server', async () => {
    // The runner's next request for work is kept from the server (the one under way, if any, is
    // cut to make it ask again): the build stays queued while the runner polls, and the kill cuts
    // that poll.
    const poll = frame.runnerProxy.hold(/POST \/rpc\/v2\/stage HTTP/, 'request');
    frame.runnerProxy.drop();
    await poll;
    const sha = await frame.push({ '.drone.yml': pipeline({ count: [numbered(300, 100, 0.1)] }) }, 'a');
    const queued = await frame.buildWhen(1, () => true);
    expect([queued.status, queued.stages?.[0]?.status]).toEqual(['pending', 'pending']);

    const down = await frame.restart();
    const back = Date.now();
    const done = await frame.buildWhen(1);
    const doneIn = Date.now() - back;
    const measured = await expectComplete(frame, done, sha, 300);
    console.info(
      `faults (a): server down ${down} ms, build done ${doneIn} ms later; ${measured.lines} lines; ${measured.statuses.join(' → ')}`,
    );
  }, 120_000);

  it('(b) taking: the server took the stage for the runner, which never heard it; it is queued again and run', async () => {
    // svc's runner claims as it asks: the server takes the stage for the runner and answers the
    // poll with it. That answer is held at the proxy (the poll under way is cut so that the runner
    // asks again through the hold), and the server is killed once the answer is written: the
    // database says the stage is the runner's, the runner does not know. The new server's
    // heartbeat watchdog finds the stage taken and never started, and queues it again.
    const claim = frame.runnerProxy.hold(/POST \/rpc\/v2\/stage HTTP/, 'answer');
    frame.runnerProxy.drop();
    const held = await claim;
    const sha = await frame.push({ '.drone.yml': pipeline({ count: [numbered(300, 100, 0.1)] }) }, 'b');
    await held.answered;
    const taken = (await frame.build(2))?.stages?.[0] as { machine?: string; status: string } | undefined;
    expect(taken).toMatchObject({ machine: RUNNER, status: 'pending' });

    const down = await frame.restart();
    const back = Date.now();
    const done = await frame.buildWhen(2);
    const doneIn = Date.now() - back;
    const measured = await expectComplete(frame, done, sha, 300);
    console.info(
      `faults (b): server down ${down} ms, build done ${doneIn} ms later; ${measured.lines} lines; ${measured.statuses.join(' → ')}`,
    );
  }, 120_000);

  it('(c) streaming: a log batch the server stored but never acknowledged is not stored twice', async () => {
    // The kill lands while the step prints 3,000 numbered lines for several seconds: once the
    // server has stored batch 10 or later and written its acknowledgement (held at the proxy). The
    // runner keeps the step's lines meanwhile and sends that batch again to the new server.
    const batch = frame.runnerProxy.hold(/\{"batch":[1-9]\d+,"lines"/, 'answer');
    const sha = await frame.push({ '.drone.yml': pipeline({ count: [numbered(3000, 20, 0.05)] }) }, 'c');
    const held = await batch;
    await held.answered;
    const cutAt = [...held.matched.matchAll(/\{"batch":(\d+)/g)].at(-1)?.[1];
    const down = await frame.restart();
    const back = Date.now();
    const done = await frame.buildWhen(3);
    const doneIn = Date.now() - back;
    const measured = await expectComplete(frame, done, sha, 3000);
    console.info(
      `faults (c): killed after batch ${cutAt} was stored; server down ${down} ms, build done ${doneIn} ms later; ${measured.lines} lines, 0 duplicates; ${measured.statuses.join(' → ')}`,
    );
  }, 120_000);

  it('(d) ending: the stage ended and the build passed, but GitHub was not told before the kill', async () => {
    // The runner reports the stage's end; the server stores it, settles the build as success and
    // posts that to GitHub — the post is held at the GitHub proxy, so the server is killed with
    // the success stored, the runner unanswered and GitHub still saying "running".
    const posting = frame.githubProxy.hold(/"state":"success"/, 'request');
    const sha = await frame.push({ '.drone.yml': pipeline({ count: [numbered(300, 100, 0.1)] }) }, 'd');
    await posting;
    expect((await frame.build(4))?.status).toBe('success');
    expect(frame.github.statuses('octocat/app', sha).at(-1)?.state).toBe('pending');

    const down = await frame.restart();
    const back = Date.now();
    const done = await frame.buildWhen(4);
    const measured = await expectComplete(frame, done, sha, 300);
    // The build was done before the kill: what takes time is the success status reaching GitHub.
    const postedIn = Date.now() - back;
    console.info(
      `faults (d): server down ${down} ms, success posted to GitHub ${postedIn} ms later; ${measured.lines} lines; ${measured.statuses.join(' → ')}`,
    );
  }, 120_000);
});
