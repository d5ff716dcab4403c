import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { SshRunnerSettings } from '../../config/index.js';
import { runnerHostKeys, SshEngine, targetOf } from '../../engines/ssh/index.js';
import { DEFAULT_RUNNER_SETTINGS } from '../../pipeline/index.js';
import { StageExecutor } from '../../runner/index.js';
import type { PrepareSettings } from '../../runner/remote/index.js';
import {
  dashboardOptions,
  pollerOf,
  rpcClientOf,
  stageRunnerOf,
  anyPlatformFilter,
  type CreatedRunner,
} from './common.js';
import { runnerPlugins } from './plugins.js';

/**
 * The runner of `svc runner ssh` (runner kind R): `type: ssh` pipelines, each stage on the host its
 * `server:` block names, through the SSH engine. Every stage shares one executor, so that
 * SVC_RUNNER_MAX_PROCS limits the steps of all pipelines together (the spec's R semantics); without
 * SVC_RUNNER_CAPACITY the runner takes every stage it is offered. SVC_RUNNER_LABELS routes pipelines
 * by their node labels as on the other kinds (the spec lists it as coming soon for R; svc has it).
 */
export async function createSshRunner(settings: SshRunnerSettings, logger: Logger): Promise<CreatedRunner> {
  const name = settings.SVC_RUNNER_NAME ?? hostname();
  const engine = new SshEngine({ target: targetOf, hostKeys: runnerHostKeys(settings.SVC_SSH_KNOWN_HOSTS) });
  const { client, endpoint, caches } = rpcClientOf(settings, logger, name);
  const prepare: PrepareSettings = {
    machine: name,
    types: ['ssh'],
    runner: { ...DEFAULT_RUNNER_SETTINGS, environ: { ...settings.SVC_RUNNER_ENVIRON } },
    netrcCloneOnly: false,
    secrets: {},
    limits: undefined,
    labels: { 'io.svc.runner': name },
    ...(await runnerPlugins(settings)),
  };
  const dashboard = dashboardOptions(settings, name);
  const executor = new StageExecutor({ engine, maxProcs: settings.SVC_RUNNER_MAX_PROCS ?? 0 });
  const stages = stageRunnerOf({ client, prepare, executor: () => executor, dashboard, logger, caches });
  const capacity = settings.SVC_RUNNER_CAPACITY ?? 0;
  const labels = settings.SVC_RUNNER_LABELS ?? {};
  // The hosts are whatever the pipelines name: any platform.
  const filter = anyPlatformFilter({
    type: 'ssh',
    kind: 'ssh',
    name,
    capacity,
    maxProcs: settings.SVC_RUNNER_MAX_PROCS ?? 0,
    limits: undefined,
    labels,
  });
  const poller = pollerOf({ client, filter, capacity, stages, logger });
  return { poller, name, endpoint, platform: { os: 'any', arch: 'any' }, labels, capacity, dashboard };
}
