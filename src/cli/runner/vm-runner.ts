import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { VmRunnerSettings } from '../../config/index.js';
import { VmEngine, vmPrefix } from '../../engines/vm/engine.js';
import { OrkaClient } from '../../engines/vm/orka.js';
import { DEFAULT_RUNNER_SETTINGS } from '../../pipeline/index.js';
import { StageExecutor } from '../../runner/index.js';
import { readEnvFile } from '../../runner/remote/env-file.js';
import type { PrepareSettings } from '../../runner/remote/index.js';
import {
  dashboardOptions,
  pollerOf,
  rpcClientOf,
  runnerLimits,
  stageRunnerOf,
  anyPlatformFilter,
  type CreatedRunner,
} from './common.js';
import { runnerPlugins } from './plugins.js';

/**
 * The runner of `svc runner vm` (runner kind V): `type: macstadium` pipelines, each stage in a VM of
 * its own on the Orka host of SVC_VMHOST_ENDPOINT, made from SVC_VM_IMAGE with SVC_VM_CPU, reached
 * over SSH as SVC_VM_USERNAME / SVC_VM_PASSWORD, deleted at the end. At start it deletes the VMs an
 * earlier run of the same runner name left (a crash). A failure says why: 2 for settings, 1 for Orka.
 */
export async function createVmRunner(
  settings: VmRunnerSettings,
  logger: Logger,
): Promise<CreatedRunner | { failure: string; code: 1 | 2 }> {
  const name = settings.SVC_RUNNER_NAME ?? hostname();
  let environ: Record<string, string>;
  try {
    const fromFile = settings.SVC_RUNNER_ENV_FILE === null ? {} : readEnvFile(settings.SVC_RUNNER_ENV_FILE);
    environ = { ...fromFile, ...settings.SVC_RUNNER_ENVIRON };
  } catch (error) {
    return { failure: `SVC_RUNNER_ENV_FILE: ${(error as Error).message}`, code: 2 };
  }
  const dumping = settings.SVC_VMHOST_HTTP_DUMP === true || settings.SVC_VMHOST_HTTP_DUMP_BODY === true;
  const orka = new OrkaClient({
    endpoint: settings.SVC_VMHOST_ENDPOINT,
    token: settings.SVC_VMHOST_TOKEN,
    dump: dumping ? (line) => logger.info(line) : undefined,
    dumpBodies: settings.SVC_VMHOST_HTTP_DUMP_BODY === true,
  });
  const engine = new VmEngine({
    orka,
    image: settings.SVC_VM_IMAGE,
    cpu: settings.SVC_VM_CPU ?? null,
    // drone-runner-macstadium's defaults, which MacStadium's images were made with.
    username: settings.SVC_VM_USERNAME ?? 'admin',
    password: settings.SVC_VM_PASSWORD ?? 'admin',
    prefix: vmPrefix(name),
  });
  try {
    const removed = await engine.removeLeftovers();
    if (removed.length > 0)
      logger.info({ vms: removed }, 'deleted the VMs an earlier run of this runner left');
  } catch (error) {
    return {
      failure: `svc runner vm: cannot use the Orka API at ${settings.SVC_VMHOST_ENDPOINT}: ${(error as Error).message}`,
      code: 1,
    };
  }
  const { client, endpoint, caches } = rpcClientOf(settings, logger, name);
  const limits = runnerLimits(settings);
  const prepare: PrepareSettings = {
    machine: name,
    types: ['macstadium', 'vm'],
    // Drone names these pipelines macstadium; svc also takes `type: vm` (commands only) for its VMs.
    aliases: { vm: 'macstadium' },
    runner: { ...DEFAULT_RUNNER_SETTINGS, environ },
    netrcCloneOnly: false,
    secrets: {},
    limits,
    labels: { 'io.svc.runner': name },
    ...(await runnerPlugins(settings)),
  };
  const dashboard = dashboardOptions(settings, name);
  const stages = stageRunnerOf({
    client,
    prepare,
    executor: () => new StageExecutor({ engine, maxProcs: settings.SVC_RUNNER_MAX_PROCS ?? 0 }),
    dashboard,
    logger,
    caches,
  });
  const capacity = settings.SVC_RUNNER_CAPACITY;
  // The VMs' platform is the image's: the runner takes stages of any.
  const filter = anyPlatformFilter({
    type: 'macstadium',
    kind: 'vm',
    name,
    capacity,
    maxProcs: settings.SVC_RUNNER_MAX_PROCS ?? 0,
    limits,
  });
  const poller = pollerOf({ client, filter, capacity, stages, logger });
  return { poller, name, endpoint, platform: { os: 'any', arch: 'any' }, labels: {}, capacity, dashboard };
}
