/* The runner's side of the protocol, step by step, for protocol tests. */
import type { WireStage, WireStep } from '../../../src/runner/client/wire/index.js';
import { json, queueBuild, type TestServer } from './harness.js';

/** A step the runner will run, as it reports it when it starts the stage. */
export function plannedStep(number: number, name: string, fields: Partial<WireStep> = {}): Partial<WireStep> {
  return { id: 0, number, name, status: 'pending', image: 'local/busybox', version: 0, ...fields };
}

/** Queues a one-stage build and starts it with one step `test`; returns that running step's id. */
export async function runningStep(server: TestServer): Promise<number> {
  const { stages } = await queueBuild(server.store, [{ name: 'build' }]);
  const running = await takeAndStart(server, stages[0]!.id, [plannedStep(1, 'test')]);
  return running.steps[0]!.id;
}

/** Accepts the stage as `machine` and starts it with `steps`; returns the running stage. */
export async function takeAndStart(
  server: TestServer,
  stageId: number,
  steps: Partial<WireStep>[],
  machine = 'runner-1',
): Promise<WireStage> {
  const accepted = await json<WireStage>(
    await server.call('POST', `/rpc/v2/stage/${stageId}?machine=${machine}`),
  );
  return json<WireStage>(await reportRunning(server, accepted, steps));
}

/** Reports a stage the runner holds (at the version it has) running with `steps`. */
export function reportRunning(
  server: TestServer,
  stage: WireStage,
  steps: Partial<WireStep>[] = [],
): Promise<Response> {
  return server.call('PUT', `/rpc/v2/stage/${stage.id}`, {
    ...stage,
    status: 'running',
    started: Math.floor(Date.now() / 1000),
    steps,
  });
}

/** The filter of svc's docker runner `name` on linux/amd64: it claims what it is offered. */
export function claimingFilter(name: string, labels: Record<string, string> = {}) {
  return {
    kind: 'pipeline',
    type: 'docker',
    os: 'linux',
    arch: 'amd64',
    labels,
    claim: true,
    runner: { name, kind: 'docker', capacity: 1, max_procs: 0, version: 'test' },
  };
}

/** Reports a step. */
export function putStep(server: TestServer, step: WireStep): Promise<Response> {
  return server.call('PUT', `/rpc/v2/step/${step.id}`, step);
}

/** Ends the stage with `status`, every step with `stepStatus`. */
export async function finish(
  server: TestServer,
  stage: WireStage,
  status: WireStage['status'],
  stepStatus: WireStep['status'] = status,
  error = '',
): Promise<WireStage> {
  const now = Math.floor(Date.now() / 1000);
  return json<WireStage>(
    await server.call('PUT', `/rpc/v2/stage/${stage.id}`, {
      ...stage,
      status,
      error,
      stopped: now,
      steps: stage.steps.map((step) => ({ ...step, status: stepStatus, stopped: now })),
    }),
  );
}

/** Runs a stage start to end with one step: accept, start, finish. */
export async function runStage(
  server: TestServer,
  stageId: number,
  status: WireStage['status'],
  machine = 'runner-1',
): Promise<WireStage> {
  const running = await takeAndStart(server, stageId, [plannedStep(1, 'only')], machine);
  return finish(server, running, status);
}
