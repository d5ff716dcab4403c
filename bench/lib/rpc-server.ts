/*
 * Benchmark support for the runner protocol: svc's real fastify app with registerRpcRoutes on a
 * real store, listening on loopback, and the data benchmarks queue (repositories, builds, stages).
 */
import Fastify, { type FastifyInstance } from 'fastify';
import pino from 'pino';
import type { NewBuild, NewStageWithSteps } from '../../src/core/build.js';
import type { BuildListener } from '../../src/core/events.js';
import type { NewRepo, Repo } from '../../src/core/repo.js';
import type { Stage } from '../../src/core/stage.js';
import type { Store } from '../../src/core/store.js';
import { InMemoryLiveLogs } from '../../src/server/logs/live-logs.js';
import { BuildWatches } from '../../src/server/queue/build-watches.js';
import { StageQueue } from '../../src/server/queue/stage-queue.js';
import { registerRpcRoutes } from '../../src/server/rpc/index.js';
import { newRepo, newStage } from '../../src/store/cases/fixtures.case.js';

export const RPC_SECRET = 'bench-rpc-secret';

/** A server listening on a loopback port, with the queue the code creating builds would wake. */
export interface RpcServer {
  url: string;
  queue: StageQueue;
  close(): Promise<void>;
}

/** svc's runner protocol over `store` with its default timings (30 s long-polls, 5 s re-checks). */
export async function startRpcServer(store: Store): Promise<RpcServer> {
  const logger = pino({ level: 'silent' });
  const listener: BuildListener = { buildUpdated: () => Promise.resolve() };
  const queue = new StageQueue({ store });
  const watches = new BuildWatches({ builds: store.builds });
  const app = Fastify({ forceCloseConnections: true }) as unknown as FastifyInstance;
  registerRpcRoutes(app, {
    store,
    listener,
    liveLogs: new InMemoryLiveLogs(),
    secret: RPC_SECRET,
    system: { proto: 'http', host: '127.0.0.1', version: 'bench' },
    netrcFor: () => Promise.resolve(undefined),
    logger,
    queue,
    watches,
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return { url: `http://127.0.0.1:${port}`, queue, close: () => app.close() };
}

let sequence = 0;

/** A public repository named `bench/repo-N`. */
export function benchRepo(): NewRepo {
  sequence++;
  return newRepo({ namespace: 'bench', name: `repo-${sequence}`, uid: `bench-${sequence}` });
}

/** A push build of `repo`, as the trigger creates it (pending, with its pipeline file). */
export function benchBuild(repo: Repo): NewBuild {
  return {
    repoId: repo.id,
    parent: 0,
    status: 'pending',
    error: '',
    config: 'kind: pipeline\ntype: docker\nname: default\nsteps:\n- name: test\n  image: alpine\n',
    event: 'push',
    action: '',
    trigger: '@hook',
    link: `${repo.link}/commit/abc1234`,
    title: '',
    message: 'Benchmark commit',
    before: '0000000',
    after: 'abc1234',
    ref: 'refs/heads/main',
    sourceRepo: repo.slug,
    source: 'main',
    target: 'main',
    authorLogin: 'bench',
    authorName: 'Bench',
    authorEmail: 'bench@example.com',
    authorAvatar: '',
    sender: 'bench',
    params: {},
    cron: '',
    deployTo: '',
    deployId: 0,
    debug: false,
    started: 0,
    finished: 0,
  };
}

/** A queued linux/amd64 docker stage without steps (runners create the steps when they start it). */
export function benchStage(number: number, type = 'docker'): NewStageWithSteps {
  return newStage(number, 0, { name: `pipeline-${number}`, type });
}

/**
 * Creates `builds` builds of `stagesPerBuild` parallel stages, spread over `repos` (`concurrency`
 * creations at a time, as several webhooks would); returns their stages.
 */
export async function queueBuilds(
  store: Store,
  repos: readonly Repo[],
  builds: number,
  stagesPerBuild: number,
  { type = 'docker', concurrency = 4 }: { type?: string; concurrency?: number } = {},
): Promise<Stage[]> {
  const created: Stage[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < builds) {
      const repo = repos[next++ % repos.length];
      if (repo === undefined) throw new Error('no repository to queue builds in');
      const stages = Array.from({ length: stagesPerBuild }, (_, i) => benchStage(i + 1, type));
      created.push(...(await store.builds.create(benchBuild(repo), stages)).stages);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return created.sort((a, b) => a.id - b.id);
}
