import { hostname } from 'node:os';
import { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { KubernetesRunnerSettings } from '../../config/index.js';
import { KubeApi } from '../../engines/kubernetes/api.js';
import { KubernetesEngine } from '../../engines/kubernetes/engine.js';
import { namespaceRules } from '../../engines/kubernetes/namespace-rules.js';
import { PER_STAGE_NAMESPACE, planPod, type PodDefaults } from '../../engines/kubernetes/pod-plan.js';
import { readPolicyFile } from '../../engines/kubernetes/policy.js';
import { DEFAULT_RUNNER_SETTINGS, type RunnerSettings } from '../../pipeline/index.js';
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
import { withContainerConfig } from './container-config.js';
import { runnerPlugins } from './plugins.js';

type Env = Record<string, string | undefined>;

/** Options tests give the runner. */
export interface KubernetesRunnerOptions {
  /** The kubeconfig to use instead of KUBECONFIG, ~/.kube/config or the pod's service account. */
  kubeconfig?: string;
  /** How long a step may take to start (default 5 minutes). */
  startTimeout?: number;
}

/**
 * The runner of `svc runner kubernetes` (runner kind K): `type: kubernetes` pipelines, each stage one
 * pod (src/engines/kubernetes), configured as kubectl is (KUBECONFIG, ~/.kube/config) or, in a pod,
 * by its service account. At start it reads the policy file and namespace rules (errors name the
 * setting), checks that the cluster answers, and deletes what an earlier run of this runner left.
 */
export async function createKubernetesRunner(
  settings: KubernetesRunnerSettings,
  env: Env,
  logger: Logger,
  options: KubernetesRunnerOptions = {},
): Promise<CreatedRunner | { failure: string; code: 1 | 2 }> {
  const name = settings.SVC_RUNNER_NAME ?? hostname();
  let defaults: PodDefaults;
  let runner: RunnerSettings;
  let plugins;
  try {
    defaults = podDefaults(settings);
    runner = runnerSettings(settings);
    plugins = await runnerPlugins(settings);
    plugins.registryPlugin = withContainerConfig(settings.SVC_CONTAINER_CONFIG, plugins.registryPlugin);
  } catch (error) {
    return { failure: (error as Error).message, code: 2 };
  }
  const config = new KubeConfig();
  try {
    if (options.kubeconfig !== undefined) config.loadFromString(options.kubeconfig);
    else config.loadFromDefault();
  } catch (error) {
    return {
      failure: `svc runner kubernetes: cannot read the Kubernetes configuration (${env.KUBECONFIG ? `KUBECONFIG=${env.KUBECONFIG}` : '~/.kube/config or the service account'}): ${(error as Error).message}`,
      code: 2,
    };
  }
  const api = new KubeApi(config);
  const engine = new KubernetesEngine({
    api,
    owner: name,
    placeholder: settings.SVC_IMAGE_PLACEHOLDER,
    filesImage: settings.SVC_IMAGE_CLONE,
    logger,
    startTimeout: options.startTimeout ?? settings.SVC_STEP_START_TIMEOUT,
  });
  try {
    const namespaces = [
      defaults.namespace || 'default',
      ...defaults.policies.map((policy) => policy.namespace),
      ...defaults.rules.keys(),
    ].filter((namespace) => namespace !== '' && namespace !== PER_STAGE_NAMESPACE);
    const leftovers = await engine.removeLeftovers(namespaces);
    const count = leftovers.pods.length + leftovers.secrets.length + leftovers.namespaces.length;
    if (count > 0) logger.info(leftovers, 'deleted what earlier runs of this runner left in the cluster');
  } catch (error) {
    return {
      failure: `svc runner kubernetes: cannot use the cluster at ${api.server}: ${(error as Error).message}`,
      code: 1,
    };
  }
  const { client, endpoint, caches } = rpcClientOf(settings, logger, name);
  const limits = runnerLimits(settings);
  const prepare: PrepareSettings = {
    machine: name,
    types: ['kubernetes'],
    runner,
    netrcCloneOnly: false,
    secrets: {},
    limits,
    labels: { 'io.svc.runner': name },
    adapt: ({ pipeline, spec, facts }) => planPod(pipeline, spec, facts, defaults),
    ...plugins,
  };
  const dashboard = dashboardOptions(settings, name);
  const maxProcs = settings.SVC_RUNNER_MAX_PROCS ?? 0;
  const stages = stageRunnerOf({
    client,
    prepare,
    executor: () => new StageExecutor({ engine, maxProcs }),
    dashboard,
    logger,
    caches,
  });
  const capacity = settings.SVC_RUNNER_CAPACITY ?? 0;
  // The cluster's nodes decide; a pipeline's platform becomes the pod's node selector.
  const filter = anyPlatformFilter({
    type: 'kubernetes',
    kind: 'kubernetes',
    name,
    capacity,
    maxProcs,
    limits,
  });
  const poller = pollerOf({ client, filter, capacity, stages, logger });
  return { poller, name, endpoint, platform: { os: 'any', arch: 'any' }, labels: {}, capacity, dashboard };
}

/** The pod defaults of SVC_* kind K settings; throws the policy file's or rules' problem. */
function podDefaults(settings: KubernetesRunnerSettings): PodDefaults {
  return {
    namespace: settings.SVC_NAMESPACE_DEFAULT ?? '',
    labels: settings.SVC_LABELS_DEFAULT ?? {},
    annotations: settings.SVC_ANNOTATIONS_DEFAULT ?? {},
    nodeSelector: settings.SVC_NODE_SELECTOR_DEFAULT ?? {},
    serviceAccount: settings.SVC_SERVICE_ACCOUNT_DEFAULT ?? '',
    requests: {
      cpu: settings.SVC_RESOURCE_REQUEST_CPU ?? 0,
      memory: settings.SVC_RESOURCE_REQUEST_MEMORY ?? 0,
    },
    limits: { cpu: settings.SVC_RESOURCE_LIMIT_CPU ?? 0, memory: settings.SVC_RESOURCE_LIMIT_MEMORY ?? 0 },
    policies: settings.SVC_POLICY_FILE === null ? [] : readPolicyFile(settings.SVC_POLICY_FILE),
    rules: namespaceRules(settings.SVC_NAMESPACE_RULES_FILE, settings.SVC_NAMESPACE_RULES),
  };
}

/** What shapes every step: the clone image, privileged images, devices, variables. */
function runnerSettings(settings: KubernetesRunnerSettings): RunnerSettings {
  let fromFile: Record<string, string> = {};
  if (settings.SVC_RUNNER_ENV_FILE !== null) {
    try {
      fromFile = readEnvFile(settings.SVC_RUNNER_ENV_FILE);
    } catch (error) {
      throw new Error(`SVC_RUNNER_ENV_FILE: ${(error as Error).message}`, { cause: error });
    }
  }
  return {
    ...DEFAULT_RUNNER_SETTINGS,
    environ: { ...fromFile, ...settings.SVC_RUNNER_ENVIRON },
    privilegedImages: settings.SVC_RUNNER_PRIVILEGED_IMAGES ?? [],
    cloneImage: settings.SVC_IMAGE_CLONE,
    devices: settings.SVC_RUNNER_DEVICES ?? [],
  };
}
