/*
 * The runner protocol fuzzing target's world: svc's app (buildApp, as `svc server` builds it) with
 * the runner protocol on SQLite (or SVC_FUZZ_DATABASE), short long-polls so that an input costs milliseconds, and a build
 * of three stages — one queued, one taken and running on another runner with two steps and a log
 * batch, one waiting on the first. Inputs move it along (take, report, finish); `restore` queues a
 * fresh build whenever the current one is no longer in that shape.
 */
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import type { Build } from '../../../src/core/build.js';
import type { Store } from '../../../src/core/store.js';
import { stageToWire, stepToWire } from '../../../src/runner/client/wire/index.js';
import { buildApp } from '../../../src/server/app.js';
import { InMemoryLiveLogs } from '../../../src/server/logs/live-logs.js';
import { BuildWatches, StageQueue } from '../../../src/server/queue/index.js';
import { registerRpcRoutes } from '../../../src/server/rpc/index.js';
import { newBuild, newRepo, newStage } from '../../../src/store/cases/fixtures.case.js';
import { openStore } from '../../../src/store/index.js';
import { fuzzDialect } from './dialect.js';

export const RPC_SECRET = 'a-fuzzing-rpc-secret';
/** The runner that holds the running stage: inputs act as another one (or as it). */
export const OTHER_RUNNER = 'other-runner';
/** How long the stage request and the build watch wait: short, so that 100,000 inputs take minutes. */
const LONG_POLL_MS = 20;

/** Ids of the current build's records, by the path segment before `:id` (`stage`, `step`, `build`). */
export type KnownIds = Record<string, number[]>;

export interface RpcFixture {
  readonly app: FastifyInstance;
  readonly store: Store;
  /** Every runner-protocol route the app registered (method and URL pattern). */
  readonly routes: readonly { method: string; url: string }[];
  readonly known: Readonly<KnownIds>;
  /** The stage or step as the protocol sends it, for inputs that break one field of it. */
  wire(kind: string, id: number): Promise<unknown>;
  /** Queues a fresh build when the current one was moved along. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startRpcFixture(): Promise<RpcFixture> {
  const database = await fuzzDialect().create();
  const store = await openStore({ datasource: database.datasource });
  const logger = pino({ level: 'silent' });
  const app = buildApp({ logger, version: '0.0.0-fuzz', schemaVersion: store.schemaVersion, health: store });
  const routes: { method: string; url: string }[] = [];
  app.addHook('onRoute', (options) => {
    if (!options.url.startsWith('/rpc/')) return;
    for (const method of [options.method].flat())
      if (method !== 'HEAD') routes.push({ method, url: options.url });
  });
  registerRpcRoutes(app, {
    store,
    listener: { buildUpdated: () => Promise.resolve() },
    liveLogs: new InMemoryLiveLogs(),
    secret: RPC_SECRET,
    system: { proto: 'http', host: 'ci.example.com', version: '0.0.0-fuzz' },
    netrcFor: () => Promise.resolve({ machine: 'github.com', login: 'octocat', password: 'x-oauth' }),
    logger,
    queue: new StageQueue({ store, longPoll: LONG_POLL_MS, recheck: 1_000 }),
    watches: new BuildWatches({ builds: store.builds }),
    timeouts: { watch: LONG_POLL_MS },
  });
  await app.ready();
  const repo = await store.repos.create(newRepo({ name: 'app' }));
  const known: KnownIds = { stage: [], step: [], build: [] };
  let current: Build | undefined;

  const inject = async (method: 'POST' | 'PUT', url: string, body?: unknown): Promise<unknown> => {
    const answer = await app.inject({
      method,
      url,
      headers: { 'x-svc-token': RPC_SECRET, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    if (answer.statusCode >= 300)
      throw new Error(`seeding: ${method} ${url} answered ${answer.statusCode} ${answer.body}`);
    return answer.statusCode === 204 ? undefined : answer.json();
  };

  /** A build of three stages: queued, running on OTHER_RUNNER (two steps, a log batch), waiting. */
  const seed = async (): Promise<void> => {
    const { build, stages } = await store.builds.create(newBuild(repo.id, { status: 'running' }), [
      newStage(1, 0),
      newStage(2, 0),
      newStage(3, 0, { status: 'waiting_on_dependencies', dependsOn: ['stage-1'] }),
    ]);
    const [, running] = stages;
    if (running === undefined) throw new Error('the build has no second stage');
    const accepted = (await inject('POST', `/rpc/v2/stage/${running.id}?machine=${OTHER_RUNNER}`)) as object;
    const steps = [1, 2].map((number) => ({
      id: 0,
      number,
      name: `step-${number}`,
      status: 'pending',
      version: 0,
    }));
    const started = (await inject('PUT', `/rpc/v2/stage/${running.id}`, {
      ...accepted,
      status: 'running',
      started: Math.floor(Date.now() / 1000),
      steps,
    })) as { steps: { id: number }[] };
    const stepIds = started.steps.map((step) => step.id);
    await inject('POST', `/rpc/v2/step/${stepIds[0] ?? 0}/logs/batch`, {
      batch: 0,
      lines: [{ pos: 0, out: 'hello\n', time: 0 }],
    });
    current = build;
    known.stage = stages.map((stage) => stage.id);
    known.step = stepIds;
    known.build = [build.id];
  };
  await seed();

  return {
    app,
    store,
    routes,
    known,
    async wire(kind, id) {
      if (kind === 'stage') {
        const stage = await store.stages.find(id);
        return stage === undefined ? undefined : stageToWire(stage, await store.steps.list(stage.id));
      }
      if (kind === 'step') {
        const step = await store.steps.find(id);
        return step === undefined ? undefined : stepToWire(step);
      }
      return undefined;
    },
    async restore() {
      const stages = current === undefined ? [] : await store.stages.list(current.id);
      const [queued, running, waiting] = stages;
      const fresh =
        queued?.status === 'pending' &&
        queued.machine === '' &&
        running?.status === 'running' &&
        running.machine === OTHER_RUNNER &&
        waiting?.status === 'waiting_on_dependencies';
      if (!fresh) await seed();
    },
    async close() {
      await app.close();
      await store.close();
      await database.drop();
    },
  };
}
