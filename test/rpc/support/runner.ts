/* A runner (client + poller + remote stage runner) on the null engine, for protocol tests. */
import pino from 'pino';
import { NullEngine, type NullEngineOptions } from '../../../src/engines/null/engine.js';
import { DEFAULT_RUNNER_SETTINGS } from '../../../src/pipeline/index.js';
import { RpcClient } from '../../../src/runner/client/index.js';
import { StageExecutor } from '../../../src/runner/index.js';
import { Poller } from '../../../src/runner/poller/index.js';
import { RemoteStageRunner, type PrepareSettings } from '../../../src/runner/remote/index.js';
import { SECRET } from './harness.js';
import { linuxDockerFilter } from '../../../src/runner/testing/filter.js';

/** Short timings so that tests take seconds. */
export const FAST_TIMINGS = {
  heartbeat: 200,
  batching: { interval: 100, maxLines: 20, maxBytes: 64 * 1024 },
  backoff: { min: 50, max: 300 },
};

/** A running test runner. */
export interface TestRunner {
  engine: NullEngine;
  poller: Poller;
  stop(): Promise<void>;
}

/** Starts a runner polling `url` with one slot, its steps scripted on a NullEngine. */
export function startRunner(
  url: string,
  engineOptions: NullEngineOptions = {},
  settings: Partial<PrepareSettings> = {},
): TestRunner {
  const engine = new NullEngine(engineOptions);
  const logger = pino({ level: 'silent' });
  const client = new RpcClient({
    endpoint: url,
    secret: SECRET,
    timeouts: { request: 5_000, longPoll: 10_000 },
  });
  const stages = new RemoteStageRunner({
    client,
    executor: () => new StageExecutor({ engine }),
    settings: {
      machine: 'runner-test',
      types: ['docker'],
      runner: DEFAULT_RUNNER_SETTINGS,
      netrcCloneOnly: false,
      secrets: {},
      limits: undefined,
      labels: {},
      ...settings,
    },
    logger,
    timings: FAST_TIMINGS,
  });
  const poller = new Poller({
    client,
    filter: linuxDockerFilter(settings.limits),
    capacity: 1,
    run: (stage, signals) => stages.run(stage, signals),
    logger,
    backoff: FAST_TIMINGS.backoff,
  });
  poller.start();
  return { engine, poller, stop: () => poller.stop({ grace: 5_000, report: 2_000 }) };
}

/** Polls `check` every 25 ms until it returns a value other than undefined, or fails after `ms`. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  ms = 10_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} not reached within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
