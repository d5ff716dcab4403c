import type { ExecArtifacts, ExecCache, ExecStep, RunPolicy } from '../../core/engine.js';
import { matchConditions, statusRunPolicy, type MatchFacts } from '../match/conditions.js';
import { runsOnHost, type Step, type StepArtifacts, type StepCache } from '../types.js';
import { CLONE_STEP } from './dag.js';
import { cloneParameters, DEFAULT_CLONE_IMAGE, hostCloneScript } from './clone.js';
import { stepEnviron } from './environ.js';
import { imageRegistry, sameImage } from './images.js';
import type { CompileInput } from './input.js';
import type { EnvironmentLayers } from './layers.js';
import type { RegistryAuth } from './registry.js';
import { stepLimits } from './resources.js';
import { DEBUG_SHELL_MOUNT, debugShellScript, type ShellShare } from './debug-shell.js';
import { scriptInvocation } from './script.js';
import { pluginEnviron } from './settings.js';
import { stepDevices, stepMounts, type RunnerVolume } from './volumes.js';
import { workingDirectory, type Workspace } from './workspace.js';

/** What every step of a run shares, prepared once. */
export interface RunContext {
  readonly input: CompileInput;
  readonly workspace: Workspace;
  readonly facts: MatchFacts;
  /** The run's variables (runner, build parameters, pipeline environment, DRONE_*…) with netrc if shared. */
  readonly environ: EnvironmentLayers;
  /** The run's variables for the clone step, which always gets the clone credentials. */
  readonly cloneEnviron: EnvironmentLayers;
  readonly secretValues: ReadonlyMap<string, string | undefined>;
  readonly runnerVolumes: readonly RunnerVolume[];
  readonly auths: readonly RegistryAuth[];
  /** Collects the build-log warnings of the run. */
  warn(message: string): void;
}

/** A step or service of the file as it will run; `number` is its 1-based place among all steps. */
export function compileStep(step: Step, service: boolean, number: number, run: RunContext): ExecStep {
  const { input, workspace } = run;
  const plugin = pluginEnviron(step.settings);
  const layers = run.environ.copy().environment(step.environment, run.secretValues).plain(plugin.envs);
  for (const [variable, secret] of Object.entries(plugin.secrets)) {
    layers.secret(variable, secret, run.secretValues.get(secret));
  }
  layers.plain(stepEnviron(step.name, number));
  addIdTokens(step, layers, run);
  const hasCommands = step.commands.length > 0;
  const debugShell = hasCommands && !service ? debugShellOf(run) : undefined;
  const script = hasCommands
    ? scriptInvocation(
        step.commands,
        step.shell,
        input.pipeline.platform.os,
        debugShell === undefined ? undefined : (commands) => debugShellScript(commands, debugShell),
      )
    : undefined;
  const detach = service || step.detach;
  return {
    ...common(step.name, number, layers, run),
    dependsOn: [...step.dependsOn],
    image: step.image,
    pull: step.pull,
    entrypoint: script?.entrypoint ?? [...step.entrypoint],
    command: script?.command ?? [...step.command],
    runPolicy: runPolicy(step, run.facts),
    errPolicy: step.failure,
    detach,
    privileged: step.privileged || isPrivilegedPlugin(step, input.runner.privilegedImages),
    // `user:group` as Docker takes it; the kubernetes engine reads both ids from it.
    user: step.group === '' ? step.user : `${step.user}:${step.group}`,
    // A service without commands keeps its image's own working directory, as in Drone.
    workingDir:
      detach && !hasCommands && step.workingDir === '' ? '' : workingDirectory(step.workingDir, workspace),
    mounts: [
      ...stepMounts(step, run.runnerVolumes),
      ...(script?.debugShell === true ? [DEBUG_SHELL_MOUNT] : []),
    ],
    networkMode: step.networkMode,
    dns: [...step.dns],
    dnsSearch: [...step.dnsSearch],
    extraHosts: [...step.extraHosts],
    devices: stepDevices(step, input.pipeline, input.runner.devices),
    ...stepLimits(step.resources, input.runner.limits),
    auth: authFor(step.image, run.auths),
    // Absent, not undefined, without a cache: a Drone file compiles exactly as before.
    ...(step.cache === undefined || detach ? {} : { cache: execCache(step.cache) }),
    ...(step.artifacts === undefined || detach ? {} : { artifacts: execArtifacts(step.artifacts) }),
    timeout: detach ? 0 : step.timeout,
    ...(step.retry === undefined || detach
      ? {}
      : {
          retry: {
            max: step.retry.max,
            exitCodes: [...step.retry.exitCodes],
            anyExit: step.retry.anyExit,
            infrastructure: step.retry.infrastructure,
          },
        }),
  };
}

/** The step's artifacts as the runner takes them: globs as written (a leading `./` dropped). */
function execArtifacts(artifacts: StepArtifacts): ExecArtifacts {
  return {
    name: artifacts.name,
    paths: [...artifacts.paths],
    expireIn: artifacts.expireIn,
    always: artifacts.always,
    reports: { junit: [...artifacts.reports.junit] },
  };
}

/** The step's cache as the runner takes it; `{{ checksum "FILE" }}` stays for the runner to resolve. */
function execCache(cache: StepCache): ExecCache {
  return {
    key: cache.key,
    restoreKeys: [...cache.restoreKeys],
    paths: [...cache.paths],
    policy: cache.policy,
  };
}

/**
 * The step's ID tokens, as masked variables: a token is a credential for whoever accepts it. One the
 * server did not sign leaves the variable empty, with a warning that says why that happens.
 */
function addIdTokens(step: Step, layers: EnvironmentLayers, run: RunContext): void {
  for (const request of step.idTokens) {
    const issued = run.input.idTokens?.find((token) => token.step === step.name && token.env === request.env);
    if (issued !== undefined) {
      layers.secret(request.env, `id_tokens.${request.env}`, issued.token);
      continue;
    }
    layers.plain({ [request.env]: '' });
    run.warn(
      `step "${step.name}" asks for an ID token in ${request.env}, but the server signed none, so it is empty: pull requests from forks get none unless the repository allows it, and only an svc server signs them (not svc exec, nor a Drone server)`,
    );
  }
}

/** tmate for a failing step, when the runner offers it and the build is a debug build. */
export function debugShellOf(run: RunContext): ShellShare | undefined {
  return run.input.build.debug ? run.input.runner.shellShare : undefined;
}

/** The step that clones the repository into the workspace; always first. */
export function compileClone(run: RunContext): ExecStep {
  const { input, workspace } = run;
  const { pipeline } = input;
  const layers = run.cloneEnviron
    .copy()
    .plain(cloneParameters(pipeline.clone))
    .plain(stepEnviron(CLONE_STEP, 1));
  const host = runsOnHost(pipeline.type);
  return {
    ...common(CLONE_STEP, 1, layers, run),
    image: host ? '' : input.runner.cloneImage !== '' ? input.runner.cloneImage : DEFAULT_CLONE_IMAGE,
    // svc's own clone image is built locally (npm run images) and published nowhere: pulled, its
    // name would come from Docker Hub, where it is not svc's. An image the operator names is pulled.
    pull: input.runner.cloneImage === '' ? 'never' : 'if-not-exists',
    entrypoint: host ? ['/bin/sh', '-c'] : [],
    command: host ? [hostCloneScript(input.build, pipeline.clone)] : [],
    runPolicy: 'always',
    errPolicy: 'fail',
    detach: false,
    privileged: false,
    user: '',
    workingDir: workspace.full,
    mounts: stepMounts(undefined, run.runnerVolumes),
    networkMode: '',
    dns: [],
    dnsSearch: [],
    extraHosts: [],
    devices: [],
    ...stepLimits(undefined, input.runner.limits),
    auth: host ? undefined : authFor(input.runner.cloneImage || DEFAULT_CLONE_IMAGE, run.auths),
  };
}

function common(
  name: string,
  number: number,
  layers: EnvironmentLayers,
  run: RunContext,
): Pick<ExecStep, 'id' | 'name' | 'envs' | 'secrets' | 'dependsOn' | 'networks' | 'timeout' | 'labels'> {
  const { envs, secrets, missing } = layers.build();
  for (const { env, secret } of missing) {
    run.warn(
      `secret "${secret}" was not found, so ${env} is empty in step "${name}"; expected a secret of that name that this build may use (pull requests from forks get no secrets)`,
    );
  }
  return {
    id: `${run.input.runId}-step-${number}`,
    name,
    envs,
    secrets,
    dependsOn: [],
    networks: [...run.input.runner.networks],
    timeout: 0,
    labels: { 'svc.step.name': name, 'svc.step.number': String(number) },
  };
}

function runPolicy(step: Step, facts: MatchFacts): RunPolicy {
  if (!matchConditions(step.when, facts)) return 'never';
  return statusRunPolicy(step.when.status);
}

/**
 * Images the runner lists as privileged run privileged only as plugins: not when the step brings its
 * own commands, entrypoint or volumes, which could turn the privilege to other uses (Drone's rule).
 */
function isPrivilegedPlugin(step: Step, images: readonly string[]): boolean {
  if (step.commands.length > 0 || step.command.length > 0 || step.entrypoint.length > 0) return false;
  if (step.volumes.length > 0) return false;
  return images.some((image) => sameImage(image, step.image));
}

function authFor(image: string, auths: readonly RegistryAuth[]): ExecStep['auth'] {
  const registry = imageRegistry(image);
  const auth = auths.find((candidate) => candidate.address === registry);
  return auth === undefined ? undefined : { ...auth };
}
