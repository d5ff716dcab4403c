/**
 * Faults injected into real processes (issue 15): a Docker runner killed with SIGKILL in the middle
 * of a step, and one stopped with SIGTERM. Each test states what svc promises and measures it.
 *  - SIGKILL: the stage becomes `error` naming the runner within 60 s (heartbeats: 10 s beats,
 *    40 s silence, checked every 10 s), the build goes on with its other stages, and the runner
 *    removes the killed run's containers at its next start.
 *  - SIGTERM: the runner takes no new stage, finishes the one it runs, then exits 0.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countMatching, dockerForTests } from '../../src/engines/docker/testing.case.js';
import { HostE2E, type HostBuild } from '../e2e/host-e2e.js';
import { startRunner, waitFor, type SvcProcess } from '../e2e/system.js';
import { workPipeline } from './pipelines.js';

const docker = await dockerForTests(['local/busybox']);

const stage = (name: string, command: string, dependsOn?: string): string =>
  workPipeline([command], { name, ...(dependsOn === undefined ? {} : { dependsOn }) });

type Stage = NonNullable<HostBuild['stages']>[number] & { name: string; error?: string };
const stages = (build: HostBuild): Stage[] => (build.stages ?? []) as Stage[];
const named = (build: HostBuild, name: string): Stage | undefined =>
  stages(build).find((s) => s.name === name);

describe.skipIf(docker.skip)('faults: a Docker runner killed or stopped mid-stage', () => {
  let e2e: HostE2E;
  const runners: SvcProcess[] = [];
  const run = (name: string): SvcProcess => {
    // One stage at a time, so that which stage a runner holds is known.
    const runner = startRunner(e2e.port, name, [], { SVC_RUNNER_CAPACITY: '1' });
    runners.push(runner);
    return runner;
  };

  beforeAll(async () => {
    e2e = await HostE2E.start(
      'octocat',
      {},
      {
        repository: {
          url: 'https://git.invalid/octocat/app.git',
          commit: () => randomBytes(20).toString('hex'),
        },
      },
    );
  }, 120_000);
  afterAll(async () => {
    for (const runner of runners) await runner.kill();
    await e2e?.stop();
  });

  it('fails the stage of a SIGKILLed runner within 60 s naming it, runs the rest, and cleans up at restart', async () => {
    const file = `${stage('long', 'sleep 600')}---\n${stage('short', 'echo fine')}`;
    const first = run('fault-killed');
    await e2e.push({ '.drone.yml': file }, 'a runner that dies');
    await e2e.build(1, (b) => named(b, 'long')?.steps?.some((s) => s.status === 'running') === true);
    const killedAt = Date.now();
    await first.kill();
    const second = run('fault-spare');
    const done = await e2e.build(1, (b) => !['pending', 'running'].includes(b.status));
    const detectedIn = Date.now() - killedAt;
    const lost = named(done, 'long');
    expect(lost?.status).toBe('error');
    expect(lost?.error).toMatch(
      /^runner "fault-killed" stopped sending heartbeats: no sign of life for \d+ s$/,
    );
    expect(detectedIn).toBeLessThan(60_000);
    // The other stage ran on the spare runner (or already had): the build went on.
    expect(named(done, 'short')?.status).toBe('success');
    console.info(
      `faults: a SIGKILLed runner's stage failed ${Math.round(detectedIn / 1000)} s after the kill`,
    );

    // The killed run's containers are still on the engine until the runner starts again.
    const owned = { label: ['io.svc.owner=fault-killed'] };
    expect((await countMatching(docker.docker!, owned)).containers).toBeGreaterThan(0);
    await second.stop();
    const again = run('fault-killed');
    await waitFor('the leftovers removed', async () =>
      (await countMatching(docker.docker!, owned)).containers === 0 ? true : undefined,
    );
    await again.stop();
  }, 150_000);

  it('finishes the running stage on SIGTERM, takes no new one, and exits 0', async () => {
    // The second stage becomes runnable only once the first ended, while the runner is stopping.
    const file = `${stage('first', 'sleep 4; echo first done')}---\n${stage('second', 'echo second', 'first')}`;
    const runner = run('fault-stopped');
    await e2e.push({ '.drone.yml': file }, 'a runner that is stopped');
    await e2e.build(2, (b) => named(b, 'first')?.steps?.some((s) => s.status === 'running') === true);
    const exit = await runner.stop();
    expect(exit.code).toBe(0);
    const after = await e2e.build(2, (b) => named(b, 'first')?.status === 'success');
    expect(await e2e.log(after, 'work', named(after, 'first')?.number)).toContain('first done');
    // The stopping runner did not take the second stage: it waits for a runner.
    expect(named(after, 'second')?.status).toBe('pending');
  }, 90_000);
});
