import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { NomadRunnerSettings } from '../../config/index.js';
import { kindsAccepting } from '../../config/schema/index.js';
import { NomadClient } from '../../runner/nomad/client.js';
import { nomadConnection, NomadSettingError } from '../../runner/nomad/connection.js';
import { NomadDispatcher, stopJob, type NomadTimings } from '../../runner/nomad/dispatcher.js';
import { JOB_PREFIX, RUNNER_META } from '../../runner/nomad/job.js';
import { Poller } from '../../runner/poller/index.js';
import { readVersion } from '../version.js';
import { rpcClientOf, runnerLimits, anyPlatformFilter, type CreatedRunner } from './common.js';

type Env = Record<string, string | undefined>;

/** Settings of the runner process that mean nothing to the task (its listener, its own name). */
const NOT_FORWARDED = new Set(['SVC_HTTP_BIND', 'SVC_HTTP_HOST', 'SVC_HTTP_PROTO', 'SVC_RUNNER_NAME']);

/**
 * The runner of `svc runner nomad` (runner kind J), as Drone's Nomad runner: it takes `type: docker`
 * stages (any platform; SVC_LIMIT_* filter them), and runs each as a Nomad batch job whose task is
 * svc's image running `svc runner docker --stage <id>` on a Nomad client's Docker engine. Nomad is
 * reached with its own client variables (NOMAD_ADDR, NOMAD_TOKEN, …). Jobs this runner left behind
 * (it was killed) are stopped and purged at start. Nomad decides how many stages run at once, so
 * the runner takes every stage it is offered.
 */
export async function createNomadRunner(
  settings: NomadRunnerSettings,
  env: Env,
  logger: Logger,
  timings?: NomadTimings,
): Promise<CreatedRunner | { failure: string; code: 1 | 2 }> {
  // SVC_RUNNER_NAME is no J setting in the spec: the machine's name names the runner, as Drone's
  // DRONE_MACHINE did; one nomad runner per machine (leftovers are found by this name).
  const name = hostname();
  let nomad: NomadClient;
  try {
    nomad = new NomadClient(nomadConnection(env), {
      namespace: settings.SVC_JOB_NAMESPACE ?? env.NOMAD_NAMESPACE ?? '',
      region: settings.SVC_JOB_REGION ?? env.NOMAD_REGION ?? '',
    });
  } catch (error) {
    if (error instanceof NomadSettingError) return { failure: error.message, code: 2 };
    throw error;
  }
  try {
    const leftovers = (await nomad.jobs(JOB_PREFIX)).filter((job) => job.Meta[RUNNER_META] === name);
    // Stopped first: their tasks cancel their stages' containers before the jobs are purged.
    const never = new AbortController().signal;
    await Promise.all(
      leftovers.map(async (job) => {
        await stopJob(nomad, job.ID, { grace: 60_000, poll: 10_000 }, never, logger);
        await nomad.stop(job.ID, true);
      }),
    );
    if (leftovers.length > 0)
      logger.info(
        { jobs: leftovers.map((job) => job.ID) },
        'stopped and purged the Nomad jobs an earlier run left',
      );
  } catch (error) {
    return {
      failure: `svc runner nomad: cannot use Nomad at ${nomad.address} (NOMAD_ADDR): ${(error as Error).message}`,
      code: 1,
    };
  }
  const { client, endpoint } = rpcClientOf(settings, logger, name);
  const dispatcher = new NomadDispatcher({
    client,
    nomad,
    logger,
    ...(timings === undefined ? {} : { timings }),
    job: {
      runner: name,
      image: settings.SVC_JOB_IMAGE ?? `svc/svc:${readVersion()}`,
      datacenters: settings.SVC_JOB_DATACENTER,
      namespace: settings.SVC_JOB_NAMESPACE ?? '',
      region: settings.SVC_JOB_REGION ?? '',
      compute: settings.SVC_TASK_COMPUTE,
      memory: settings.SVC_TASK_MEMORY,
      env: forwardedSettings(env),
    },
  });
  const limits = runnerLimits(settings);
  // The cluster's nodes decide: the job's constraints carry the pipeline's platform.
  const filter = anyPlatformFilter({
    type: 'docker',
    kind: 'nomad',
    name,
    capacity: 0,
    maxProcs: settings.SVC_RUNNER_MAX_PROCS ?? 0,
    limits,
  });
  const poller = new Poller({
    client,
    filter,
    capacity: 0,
    run: (stage, signals) => dispatcher.run(stage, signals),
    logger,
  });
  return {
    poller,
    name,
    endpoint,
    platform: { os: 'any', arch: 'any' },
    labels: {},
    capacity: 0,
    dashboard: undefined,
  };
}

/**
 * The SVC_* variables of this process that the task's docker runner takes too (the RPC connection,
 * SVC_RUNNER_ container settings, SVC_CPU_ and SVC_MEMORY_ limits, plugins, limits, logging), as they are.
 */
export function forwardedSettings(env: Env): Record<string, string> {
  const forwarded: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined || !key.startsWith('SVC_') || NOT_FORWARDED.has(key)) continue;
    const kinds = kindsAccepting(key);
    if (kinds.includes('nomad') && kinds.includes('docker')) forwarded[key] = value;
  }
  return forwarded;
}
