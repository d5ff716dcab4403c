import { describe, expect, it } from 'vitest';
import type { WireStage, WireStep } from '../../src/runner/client/wire/index.js';
import { json, queueBuild } from './support/harness.js';
import { finish, plannedStep, putStep, runStage, takeAndStart } from './support/flow.js';
import { useServers } from './support/fresh.js';
import { eventually } from './support/runner.js';

describe('rpc stage and step updates', () => {
  const server = useServers();

  it('creates the steps the runner reports when it starts the stage, and makes the build running', async () => {
    const s = await server();
    const { build, stages } = await queueBuild(s.store, [{ name: 'build' }]);
    const running = await takeAndStart(s, stages[0]!.id, [
      plannedStep(1, 'clone'),
      plannedStep(2, 'test', { depends_on: ['clone'], errignore: true, image: 'node:24' }),
    ]);
    expect(running).toMatchObject({ status: 'running', machine: 'runner-1' });
    expect(running.steps.map((step) => [step.number, step.name, step.step_id, step.version])).toEqual([
      [1, 'clone', stages[0]!.id, 1],
      [2, 'test', stages[0]!.id, 1],
    ]);
    expect(running.steps.every((step) => step.id > 0)).toBe(true);
    expect(await s.store.steps.list(stages[0]!.id)).toMatchObject([
      { name: 'clone' },
      { name: 'test', errIgnore: true, image: 'node:24', dependsOn: ['clone'] },
    ]);
    expect((await s.store.builds.find(build.id))?.status).toBe('running');
    expect(s.heard.map((h) => [h.build.status, h.stages.map((st) => st.status)])).toEqual([
      ['running', ['running']],
    ]);
  });

  it('rejects stale stage and step versions with 409, and answers a repeated update with what is stored', async () => {
    const s = await server();
    const { stages } = await queueBuild(s.store, [{ name: 'build' }]);
    const accepted = await json<WireStage>(await s.call('POST', `/rpc/v2/stage/${stages[0]!.id}?machine=r1`));
    const start = { ...accepted, status: 'running', started: 100, steps: [plannedStep(1, 'a')] };
    const running = await json<WireStage>(await s.call('PUT', `/rpc/v2/stage/${accepted.id}`, start));
    // The same request again (its answer was lost): not a conflict, same stage, no second step.
    const replay = await json<WireStage>(await s.call('PUT', `/rpc/v2/stage/${accepted.id}`, start));
    expect(replay.version).toBe(running.version);
    expect(replay.steps).toHaveLength(1);
    // An older version that asks for something else is a conflict.
    const stale = await s.call('PUT', `/rpc/v2/stage/${accepted.id}`, { ...start, status: 'failure' });
    expect(stale.status).toBe(409);
    expect(await stale.json()).toMatchObject({ code: 'STALE_VERSION' });

    const step = running.steps[0]!;
    const started = await json<WireStep>(await putStep(s, { ...step, status: 'running', started: 101 }));
    expect(started.version).toBe(step.version + 1);
    expect((await putStep(s, { ...step, status: 'running', started: 101 })).status).toBe(200);
    const staleStep = await putStep(s, { ...step, status: 'failure', stopped: 102 });
    expect(staleStep.status).toBe(409);
    const done = await json<WireStep>(
      await putStep(s, { ...started, status: 'success', exit_code: 0, stopped: 102 }),
    );
    expect(await s.store.steps.find(step.id)).toMatchObject({
      status: 'success',
      started: 101_000,
      stopped: 102_000,
    });

    const ended = await finish(s, { ...running, steps: [done] }, 'success');
    expect(ended.status).toBe('success');
    const late = await putStep(s, { ...done, status: 'failure' });
    expect(late.status).toBe(409);
  });

  it('answers a repeated final report with what is stored, and refuses final reports of a stage not taken or done', async () => {
    const s = await server();
    const { stages } = await queueBuild(s.store, [{ name: 'a' }, { name: 'b' }]);
    const [a, b] = [stages[0]!, stages[1]!];
    const unaccepted = await s.call('PUT', `/rpc/v2/stage/${a.id}`, {
      id: a.id,
      status: 'success',
      version: 1,
    });
    expect(unaccepted.status).toBe(409);
    expect(await unaccepted.json()).toMatchObject({ code: 'CONFLICT' });
    const accepted = await json<WireStage>(await s.call('POST', `/rpc/v2/stage/${a.id}?machine=r1`));
    const report = { ...accepted, status: 'failure', exit_code: 1, stopped: 200 };
    const ended = await json<WireStage>(await s.call('PUT', `/rpc/v2/stage/${a.id}`, report));
    expect(ended).toMatchObject({ status: 'failure', exit_code: 1, version: accepted.version + 1 });
    const replay = await json<WireStage>(await s.call('PUT', `/rpc/v2/stage/${a.id}`, report));
    expect(replay.version).toBe(ended.version);
    const again = await s.call('PUT', `/rpc/v2/stage/${a.id}`, { ...ended, status: 'success' });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ code: 'CONFLICT' });
    expect(await s.store.stages.find(a.id)).toMatchObject({ status: 'failure', version: ended.version });
    // Another stage of the build, still queued, is untouched.
    expect(await s.store.stages.find(b.id)).toMatchObject({ status: 'pending', machine: '' });
  });

  it('refuses updates of a stage nobody accepted, and statuses a runner cannot set', async () => {
    const s = await server();
    const { stages } = await queueBuild(s.store, [{ name: 'build' }]);
    const stage = stages[0]!;
    const unaccepted = await s.call('PUT', `/rpc/v2/stage/${stage.id}`, {
      id: stage.id,
      status: 'running',
      version: 1,
    });
    expect(unaccepted.status).toBe(409);
    await s.call('POST', `/rpc/v2/stage/${stage.id}?machine=r1`);
    const blocked = await s.call('PUT', `/rpc/v2/stage/${stage.id}`, {
      id: stage.id,
      status: 'blocked',
      version: 2,
    });
    expect(blocked.status).toBe(400);
    const malformed = await s.call('PUT', `/rpc/v2/stage/${stage.id}`, { id: stage.id, status: 'nonsense' });
    expect(malformed.status).toBe(400);
    expect(
      (await s.call('PUT', '/rpc/v2/step/999999', { number: 1, name: 'x', status: 'running' })).status,
    ).toBe(404);
  });

  it('ends a stage that never started (a pipeline that does not compile) as error, with its message', async () => {
    const s = await server();
    const { build, stages } = await queueBuild(s.store, [{ name: 'build' }]);
    const accepted = await json<WireStage>(await s.call('POST', `/rpc/v2/stage/${stages[0]!.id}?machine=r1`));
    const ended = await finish(
      s,
      accepted,
      'error',
      'error',
      'line 3, column 1: steps[0].image: is required',
    );
    expect(ended).toMatchObject({ status: 'error', error: 'line 3, column 1: steps[0].image: is required' });
    expect(await s.store.builds.find(build.id)).toMatchObject({ status: 'error' });
    expect(s.heard.at(-1)?.build.status).toBe('error');
  });

  it('closes the steps a final report leaves open: pending ones skipped, running ones error', async () => {
    const s = await server();
    const { stages } = await queueBuild(s.store, [{ name: 'build' }]);
    const running = await takeAndStart(s, stages[0]!.id, [plannedStep(1, 'a'), plannedStep(2, 'b')]);
    const first = await json<WireStep>(
      await putStep(s, { ...running.steps[0]!, status: 'running', started: 5 }),
    );
    await json(
      await s.call('PUT', `/rpc/v2/stage/${running.id}`, { ...running, status: 'failure', steps: [] }),
    );
    expect((await s.store.steps.list(running.id)).map((step) => [step.name, step.status])).toEqual([
      ['a', 'error'],
      ['b', 'skipped'],
    ]);
    expect((await s.store.steps.find(first.id))?.error).toBe('the stage ended while the step was running');
  });
});

describe('rpc build status and dependent stages', () => {
  const server = useServers();

  it('queues dependents of a passed stage and skips those that run only on failure', async () => {
    const s = await server();
    const { build, stages } = await queueBuild(s.store, [
      { name: 'build' },
      { name: 'deploy', dependsOn: ['build'] },
      { name: 'notify-failure', dependsOn: ['build'], onSuccess: false, onFailure: true },
    ]);
    await runStage(s, stages[0]!.id, 'success');
    const statuses = async () => (await s.store.stages.list(build.id)).map((st) => st.status);
    expect(await statuses()).toEqual(['success', 'pending', 'skipped']);
    expect((await s.store.builds.find(build.id))?.status).toBe('running');
    await runStage(s, stages[1]!.id, 'success');
    expect(await s.store.builds.find(build.id)).toMatchObject({ status: 'success' });
    expect((await s.store.builds.find(build.id))?.finished).toBeGreaterThan(0);
  });

  it('skips the stages downstream of a failure, also through skipped ones, and runs on-failure stages', async () => {
    const s = await server();
    const { build, stages } = await queueBuild(s.store, [
      { name: 'build' },
      { name: 'test', dependsOn: ['build'] },
      { name: 'deploy', dependsOn: ['test'] },
      { name: 'cleanup', dependsOn: ['deploy'], onSuccess: true, onFailure: true },
    ]);
    await runStage(s, stages[0]!.id, 'failure');
    expect((await s.store.stages.list(build.id)).map((st) => st.status)).toEqual([
      'failure',
      'skipped',
      'skipped',
      'pending',
    ]);
    await runStage(s, stages[3]!.id, 'success');
    expect((await s.store.builds.find(build.id))?.status).toBe('failure');
  });

  it('ignores the failure of a stage with errIgnore, and ranks killed over error over failure', async () => {
    const cases: { statuses: WireStage['status'][]; ignore?: number; expected: string }[] = [
      { statuses: ['failure', 'success'], ignore: 0, expected: 'success' },
      { statuses: ['failure', 'error'], expected: 'error' },
      { statuses: ['error', 'killed'], expected: 'killed' },
      { statuses: ['success', 'failure'], expected: 'failure' },
      { statuses: ['skipped', 'success'], expected: 'success' },
    ];
    const s = await server();
    for (const { statuses, ignore, expected } of cases) {
      const { build, stages } = await queueBuild(
        s.store,
        statuses.map((_, i) => ({ name: `s${i}`, errIgnore: i === ignore })),
      );
      for (const [i, status] of statuses.entries()) await runStage(s, stages[i]!.id, status);
      expect((await s.store.builds.find(build.id))?.status, statuses.join(',')).toBe(expected);
    }
  });

  it('tells the listener about every status change, with the build and all its stages', async () => {
    const s = await server();
    const { build, stages } = await queueBuild(s.store, [{ name: 'a' }, { name: 'b', dependsOn: ['a'] }]);
    await runStage(s, stages[0]!.id, 'success');
    await runStage(s, stages[1]!.id, 'success');
    expect(s.heard.map((h) => [h.build.id, h.build.status, ...h.stages.map((st) => st.status)])).toEqual([
      [build.id, 'running', 'running', 'waiting_on_dependencies'],
      [build.id, 'running', 'success', 'pending'],
      [build.id, 'running', 'success', 'running'],
      [build.id, 'success', 'success', 'success'],
    ]);
    expect(s.heard.every((h) => h.repo.id === build.repoId)).toBe(true);
  });

  it('keeps going when the listener throws', async () => {
    const s = await server({ listener: { buildUpdated: () => Promise.reject(new Error('provider down')) } });
    const { build, stages } = await queueBuild(s.store, [{ name: 'a' }]);
    await runStage(s, stages[0]!.id, 'success');
    expect((await s.store.builds.find(build.id))?.status).toBe('success');
  });

  it('never overwrites a build that is already done (cancelled)', async () => {
    const s = await server();
    const { build, stages } = await queueBuild(s.store, [{ name: 'a' }]);
    const running = await takeAndStart(s, stages[0]!.id, [plannedStep(1, 'x')]);
    const stored = await s.store.builds.find(build.id);
    await s.store.builds.update({ ...stored!, status: 'killed' });
    await finish(s, running, 'success');
    expect((await s.store.builds.find(build.id))?.status).toBe('killed');
  });
});

describe('rpc recovery of builds a server left half-updated', () => {
  const server = useServers();

  it('settles at start what a server killed between two writes left undone, telling only of changes', async () => {
    const first = await server();
    const { build, stages } = await queueBuild(first.store, [{ name: 'a' }, { name: 'b', dependsOn: ['a'] }]);
    const untouched = await queueBuild(first.store, [{ name: 'quiet' }]);
    await takeAndStart(first, untouched.stages[0]!.id, [plannedStep(1, 'x')]);
    const running = await takeAndStart(first, stages[0]!.id, [plannedStep(1, 'x'), plannedStep(2, 'y')]);
    await first.close();
    // The stage's end was written, then the server died: steps open, dependents not queued.
    const stored = await first.store.stages.find(running.id);
    await first.store.stages.update({ ...stored!, status: 'success', stopped: Date.now() });

    const second = await server({ store: first.store });
    await eventually(async () => Promise.resolve(second.heard.length > 0 ? true : undefined));
    expect((await second.store.stages.find(stages[1]!.id))?.status).toBe('pending');
    expect((await second.store.steps.list(running.id)).map((step) => step.status)).toEqual([
      'skipped',
      'skipped',
    ]);
    expect((await second.store.builds.find(build.id))?.status).toBe('running');
    expect(second.heard.map((h) => h.build.id)).toEqual([build.id]);
  });
});
