/*
 * A stage held running, for the benchmarks that use the runner protocol's cache routes themselves
 * (they answer only for a running stage, and only to the runner that holds it): a build whose step
 * sleeps, cancelled once done with.
 */
import http from 'node:http';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { call } from '../../test/api/client.js';
import { RPC_SECRET } from '../../test/e2e/system.js';
import { buildAnswer, pushBuild, waitDone } from './cache-builds.js';
import { oneStepPipeline } from './one-step.js';
import type { SvcSystem } from './svc-system.js';

export interface HeldStage {
  id: number;
  /** The runner that holds it (the name its requests must give). */
  machine: string;
  /** Cancels the build and waits until it is done. */
  release(): Promise<void>;
}

/** Pushes build `number` (a step that sleeps up to 10 minutes) and waits until a runner runs its stage. */
export async function holdStage(system: SvcSystem, number: number): Promise<HeldStage> {
  await pushBuild(system, number, oneStepPipeline(['sleep 600'], 'hold'));
  const release = async (): Promise<void> => {
    await call({ url: system.url }, `/api/repos/${system.repo}/builds/${number}`, {
      method: 'DELETE',
      token: system.token,
    });
    await waitDone(system, number, 60_000);
  };
  for (const deadline = performance.now() + 120_000; performance.now() < deadline;) {
    const stage = (await buildAnswer(system, number)).stages?.[0];
    if (stage?.status === 'running' && stage.machine !== '')
      return { id: stage.id, machine: stage.machine, release };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await release();
  throw new Error(`build ${number}'s stage did not start`);
}

/**
 * PUT /rpc/v2/stage/{id}/cache?key=… with `archive`, as the runner's client sends it but without its
 * 60-second wait for the answer (the server answers once the whole archive is stored); answers the stored size.
 */
export async function putWhole(
  system: SvcSystem,
  stage: HeldStage,
  key: string,
  archive: Readable,
): Promise<number> {
  const request = http.request(
    `${system.url}/rpc/v2/stage/${stage.id}/cache?key=${encodeURIComponent(key)}`,
    {
      method: 'PUT',
      headers: {
        'X-SVC-Token': RPC_SECRET,
        'X-SVC-Runner': stage.machine,
        'Content-Type': 'application/zstd',
      },
    },
  );
  const answer = new Promise<http.IncomingMessage>((resolve, reject) => {
    request.once('response', resolve);
    request.once('error', reject);
  });
  await pipeline(archive, request);
  const response = await answer;
  let body = '';
  for await (const chunk of response as AsyncIterable<Buffer>) body += chunk.toString();
  if (response.statusCode !== 201) throw new Error(`the server answered ${response.statusCode}: ${body}`);
  return (JSON.parse(body) as { size: number }).size;
}
