import { afterEach, describe, expect, it } from 'vitest';
import { isDone } from '../../src/core/status.js';
import type { Store } from '../../src/core/store.js';
import type { NullScript } from '../../src/engines/null/engine.js';
import { queueBuild, startServer, type TestServer } from './support/harness.js';
import { useServers } from './support/fresh.js';
import { eventually, startRunner, type TestRunner } from './support/runner.js';

const PIPELINE = `kind: pipeline
type: docker
name: build
clone:
  disable: true
steps:
- name: compile
  image: local/busybox
  commands: [ "make" ]
- name: test
  image: local/busybox
  commands: [ "make test" ]
`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A step printing `count` numbered lines, `delay` ms apart, then exiting `exitCode`. */
function printing(count: number, delay: number, exitCode = 0): NullScript {
  return async (_step, output, signal) => {
    for (let i = 0; i < count; i++) {
      await new Promise((resolve) => setTimeout(resolve, delay));
      signal.throwIfAborted();
      output(`line ${i}`);
    }
    return { exitCode, oomKilled: false };
  };
}

async function doneBuild(store: Store, buildId: number, ms = 15_000) {
  return eventually(
    async () => {
      const build = await store.builds.find(buildId);
      return build !== undefined && isDone(build.status) ? build : undefined;
    },
    ms,
    `build ${buildId} done`,
  );
}

describe('svc runner core over the protocol (null engine)', () => {
  const server = useServers();
  const runners: TestRunner[] = [];
  afterEach(async () => {
    for (const runner of runners.splice(0)) await runner.stop();
  });

  it('runs a stage: steps created and reported, logs complete and in order, statuses final', async () => {
    const s = await server();
    const { build, stages } = await queueBuild(s.store, [{ name: 'build' }], { build: { config: PIPELINE } });
    s.queue.wake();
    runners.push(startRunner(s.url, { steps: { compile: printing(250, 1), test: printing(3, 1, 2) } }));

    expect((await doneBuild(s.store, build.id)).status).toBe('failure');
    const stage = await s.store.stages.find(stages[0]!.id);
    expect(stage).toMatchObject({ status: 'failure', machine: 'runner-test', exitCode: 2 });
    const steps = await s.store.steps.list(stage!.id);
    expect(steps.map((step) => [step.name, step.status, step.exitCode])).toEqual([
      ['compile', 'success', 0],
      ['test', 'failure', 2],
    ]);
    expect(steps.every((step) => step.started > 0 && step.stopped >= step.started)).toBe(true);
    const log = await s.store.logs.find(steps[0]!.id);
    expect(log?.map((line) => line.out)).toEqual(Array.from({ length: 250 }, (_, i) => `line ${i}`));
    expect(log?.map((line) => line.pos)).toEqual(Array.from({ length: 250 }, (_, i) => i));
    expect(await s.store.logBatches.list(steps[0]!.id)).toEqual([]);
    const live = s.liveLogs.published.get(steps[0]!.id) ?? [];
    expect(live.length).toBeGreaterThan(0);
    expect(live.map((line) => line.pos)).toEqual(live.map((_, i) => i));
    expect(s.heard.at(-1)?.build.status).toBe('failure');
  });

  it('marks a stage whose pipeline does not lint as error, with the problem, before any step', async () => {
    const s = await server();
    const broken =
      'kind: pipeline\ntype: docker\nname: build\nsteps:\n- name: nameless-image\n  commands: [ "true" ]\n';
    const { build, stages } = await queueBuild(s.store, [{ name: 'build' }], { build: { config: broken } });
    s.queue.wake();
    const runner = startRunner(s.url);
    runners.push(runner);
    expect((await doneBuild(s.store, build.id)).status).toBe('error');
    const stage = await s.store.stages.find(stages[0]!.id);
    expect(stage?.status).toBe('error');
    expect(stage?.error).toMatch(/line 5, column \d+: .*image/);
    expect(await s.store.steps.list(stage!.id)).toEqual([]);
    expect(runner.engine.events).toEqual([]);
  });

  it('cancels the stage when the build is cancelled (watch)', async () => {
    const s = await server();
    const { build, stages } = await queueBuild(s.store, [{ name: 'build' }], { build: { config: PIPELINE } });
    s.queue.wake();
    runners.push(startRunner(s.url, { steps: { compile: { lines: ['started'], hang: true } } }));
    await eventually(async () =>
      (await s.store.stages.find(stages[0]!.id))?.status === 'running' ? true : undefined,
    );
    await sleep(200);
    const stored = await s.store.builds.find(build.id);
    await s.store.builds.update({ ...stored!, status: 'killed' });
    const cancelled = Date.now();
    s.watches.notify(build.id);
    const stage = await eventually(async () => {
      const found = await s.store.stages.find(stages[0]!.id);
      return found !== undefined && isDone(found.status) ? found : undefined;
    });
    expect(Date.now() - cancelled).toBeLessThan(2_000);
    expect(stage).toMatchObject({ status: 'killed', error: 'the stage was cancelled' });
    expect((await s.store.steps.list(stage.id)).map((step) => step.status)).toEqual(['killed', 'skipped']);
    expect(await s.store.logs.find((await s.store.steps.list(stage.id))[0]!.id)).toEqual([
      { pos: 0, out: 'started', time: 0 },
    ]);
  });

  it('stops gracefully: takes no new stage, lets the running one finish and report', async () => {
    const s = await server();
    const { build, stages } = await queueBuild(s.store, [{ name: 'build' }], { build: { config: PIPELINE } });
    s.queue.wake();
    const runner = startRunner(s.url, { steps: { compile: printing(5, 100) } });
    await eventually(async () =>
      (await s.store.stages.find(stages[0]!.id))?.status === 'running' ? true : undefined,
    );
    const stopped = runner.stop();
    const next = await queueBuild(s.store, [{ name: 'build' }], { build: { config: PIPELINE } });
    s.queue.wake();
    await stopped;
    expect((await s.store.builds.find(build.id))?.status).toBe('success');
    expect(await s.store.stages.find(next.stages[0]!.id)).toMatchObject({ status: 'pending', machine: '' });
  });

  it('leaves alone a stage outside its limits: the server does not hand it over', async () => {
    const s = await server({ longPoll: 300 });
    const { stages } = await queueBuild(s.store, [{ name: 'build' }], {
      build: { config: PIPELINE, event: 'push' },
    });
    runners.push(startRunner(s.url, {}, { limits: { events: ['tag'], repos: [], trusted: false } }));
    await sleep(800);
    expect(await s.store.stages.find(stages[0]!.id)).toMatchObject({ status: 'pending', machine: '' });
  });
});

describe('a runner that loses the server', () => {
  const server = useServers();
  const extra: TestServer[] = [];
  const runners: TestRunner[] = [];
  afterEach(async () => {
    for (const runner of runners.splice(0)) await runner.stop();
    for (const s of extra.splice(0)) await s.close();
  });

  it('keeps running, buffers, and delivers every line exactly once when the server is back', async () => {
    const s = await server();
    const { build, stages } = await queueBuild(s.store, [{ name: 'build' }], { build: { config: PIPELINE } });
    s.queue.wake();
    runners.push(startRunner(s.url, { steps: { compile: printing(60, 40), test: printing(5, 10) } }));
    await eventually(async () =>
      (await s.store.stages.find(stages[0]!.id))?.status === 'running' ? true : undefined,
    );
    await sleep(700);
    const firstLive = s.liveLogs.published;
    await s.close();
    const downAt = Date.now();
    await sleep(1_500);
    const back = await startServer(s.store, { port: s.port });
    extra.push(back);
    const downFor = Date.now() - downAt;

    expect((await doneBuild(s.store, build.id)).status).toBe('success');
    const steps = await s.store.steps.list(stages[0]!.id);
    expect(steps.map((step) => step.status)).toEqual(['success', 'success']);
    const log = await s.store.logs.find(steps[0]!.id);
    expect(log?.map((line) => line.out)).toEqual(Array.from({ length: 60 }, (_, i) => `line ${i}`));
    expect((await s.store.logs.find(steps[1]!.id))?.length).toBe(5);
    // Live watchers of both servers together saw each line at most once, in order.
    const live = [
      ...(firstLive.get(steps[0]!.id) ?? []),
      ...(back.liveLogs.published.get(steps[0]!.id) ?? []),
    ];
    expect(live.map((line) => line.pos)).toEqual(
      [...new Set(live.map((line) => line.pos))].sort((a, b) => a - b),
    );
    // The first server saw only part of the log: the rest was buffered while it was gone.
    const beforeClose = firstLive.get(steps[0]!.id)?.length ?? 0;
    expect(beforeClose).toBeGreaterThan(0);
    expect(beforeClose).toBeLessThan(60);
    expect(downFor).toBeGreaterThanOrEqual(1_500);
  });
});
