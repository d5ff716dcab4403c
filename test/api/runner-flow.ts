/* Test support: moving a build along as a runner does, over the runner protocol. */
import { expect } from 'vitest';
import type { Build } from '../../src/core/build.js';
import { RPC_SECRET, type Harness } from './harness.js';

/** A call of the runner protocol with the harness's RPC secret; anything but 200 fails the test. */
function rpcOf(h: Harness) {
  return async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
    const response = await fetch(`${h.url}${path}`, {
      method,
      headers: {
        'x-svc-token': RPC_SECRET,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? null : JSON.stringify(body),
    });
    expect(response.status, `${method} ${path}`).toBe(200);
    return (await response.json()) as Record<string, unknown>;
  };
}

/**
 * Plays a runner named `machine` over the runner protocol: takes the build's stage (the first, or
 * the one numbered `number`) and starts it with one step `test`, which it leaves running. Answers
 * the stage as the runner has it then, for runStage to end it.
 */
export async function startStage(
  h: Harness,
  build: Build,
  number = 1,
  machine = 'runner-1',
): Promise<Record<string, unknown>> {
  const stage = (await h.store.stages.list(build.id)).find((candidate) => candidate.number === number);
  const rpc = rpcOf(h);
  const accepted = await rpc('POST', `/rpc/v2/stage/${stage?.id}?machine=${encodeURIComponent(machine)}`);
  return rpc('PUT', `/rpc/v2/stage/${stage?.id}`, {
    ...accepted,
    status: 'running',
    started: Math.floor(Date.now() / 1000),
    steps: [{ id: 0, number: 1, name: 'test', status: 'pending', image: 'alpine', version: 0 }],
  });
}

/**
 * Plays a runner over the runner protocol: takes the build's stage (the first, or the one numbered
 * `number`), starts it with one step `test`, ends it with `status`.
 */
export async function runStage(
  h: Harness,
  build: Build,
  status: 'success' | 'failure',
  number = 1,
): Promise<void> {
  const running = await startStage(h, build, number);
  const now = Math.floor(Date.now() / 1000);
  const steps = (running.steps as Record<string, unknown>[]).map((step) => ({
    ...step,
    status,
    exit_code: status === 'success' ? 0 : 1,
    started: now,
    stopped: now + 1,
  }));
  await rpcOf(h)('PUT', `/rpc/v2/stage/${String(running.id)}`, {
    ...running,
    steps,
    status,
    exit_code: status === 'success' ? 0 : 1,
    stopped: now + 1,
  });
}

/** Two independent stages, `lint` (its step passes) and `unit` (fails), for restart tests. */
export const LINT_AND_UNIT = `kind: pipeline
type: docker
name: lint
steps:
- name: test
  image: alpine
  commands: [true]
---
kind: pipeline
type: docker
name: unit
steps:
- name: test
  image: alpine
  commands: [false]
`;
