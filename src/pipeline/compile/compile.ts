import type { ExecHost, ExecSpec, ExecStep } from '../../core/engine.js';
import { Diagnostics, diagnosticText } from '../diagnostics.js';
import { checkUntrusted } from '../lint/untrusted.js';
import { matchFacts } from '../match/conditions.js';
import type { EnvValue, Pipeline } from '../types.js';
import { wireDependencies } from './dag.js';
import { normalizeRegistry } from './images.js';
import { netrcEnviron, runEnviron } from './environ.js';
import type { CompileInput, CompileResult } from './input.js';
import { EnvironmentLayers } from './layers.js';
import { parseDockerConfig, type RegistryAuth } from './registry.js';
import { compileClone, compileStep, type RunContext } from './step.js';
import { runnerVolumes, specVolumes } from './volumes.js';
import { DEBUG_SHELL_MOUNT, debugShellVolume } from './debug-shell.js';
import { resolveWorkspace, type Workspace } from './workspace.js';

/**
 * Exit code with which a step ends its pipeline early, as a success: the runner core skips every step
 * that has not started and reports the stage as passed (Drone's convention, which plugins rely on).
 * The compiler marks nothing for it; the rule lives in the runner core.
 */
export const SKIP_EXIT_CODE = 78;

/**
 * Compiles one pipeline of a build into the ExecSpec an engine runs: the clone step (unless
 * `clone.disable`), the services (detached) and the steps, in file order, wired by Drone's dependency
 * rules, with their variables, secrets (masked), mounts and limits. Steps whose `when` does not match
 * the build are kept with run policy `never`, so that the runner core reports them as skipped.
 * A pipeline that uses what only trusted repositories may use is refused when `trusted` is false.
 */
export async function compilePipeline(input: CompileInput): Promise<CompileResult> {
  const { pipeline } = input;
  if (!input.trusted) {
    const diagnostics = new Diagnostics();
    checkUntrusted(pipeline, diagnostics);
    if (diagnostics.hasErrors()) {
      return {
        ok: false,
        errors: diagnostics.list().map((d) => `line ${d.line}, column ${d.column}: ${diagnosticText(d)}`),
      };
    }
  }
  const warnings: string[] = [];
  const warn = (message: string): void => {
    if (!warnings.includes(message)) warnings.push(message);
  };
  const secretValues = await resolveSecrets(input);
  const workspace = resolveWorkspace(pipeline, input.runner.workspaceBase);
  const { volumes: runnerVolumeList, problems } = runnerVolumes(input.runner.volumes);
  problems.forEach(warn);
  const { environ, cloneEnviron } = runEnvironments(input, workspace, secretValues);
  const run: RunContext = {
    input,
    workspace,
    facts: {
      ...matchFacts(input.repo, input.build, input.system.host),
      ...(input.changedFiles === undefined ? {} : { changedFiles: input.changedFiles }),
    },
    environ,
    cloneEnviron,
    secretValues,
    runnerVolumes: runnerVolumeList,
    auths: [
      ...pullCredentials(pipeline, secretValues, warn),
      ...(input.registries ?? []).map((auth) => ({ ...auth, address: normalizeRegistry(auth.address) })),
    ],
    warn,
  };
  const steps: ExecStep[] = [];
  if (!pipeline.clone.disable) steps.push(compileClone(run));
  for (const service of pipeline.services) steps.push(compileStep(service, true, steps.length + 1, run));
  for (const step of pipeline.steps) steps.push(compileStep(step, false, steps.length + 1, run));
  wireDependencies(steps, !pipeline.clone.disable);
  const host = hostOf(pipeline, secretValues, warn);
  if (typeof host === 'string') return { ok: false, errors: [host] };
  const spec: ExecSpec = {
    ...(host === undefined ? {} : { host }),
    runId: input.runId,
    platform: {
      os: pipeline.platform.os !== '' ? pipeline.platform.os : 'linux',
      arch: pipeline.platform.arch !== '' ? pipeline.platform.arch : 'amd64',
    },
    workspace: { base: workspace.base, path: workspace.full },
    steps,
    volumes: [
      ...specVolumes(pipeline, runnerVolumeList),
      ...(steps.some((step) => step.mounts.includes(DEBUG_SHELL_MOUNT)) && input.runner.shellShare
        ? [debugShellVolume(input.runner.shellShare)]
        : []),
    ],
    labels: { ...input.labels },
    // Absent, not empty, without `artifacts: from:`: a Drone file compiles exactly as before.
    ...(pipeline.artifactsFrom.length === 0 ? {} : { artifactsFrom: [...pipeline.artifactsFrom] }),
  };
  return { ok: true, spec, warnings };
}

/**
 * The variables every step starts from, and those of the clone step, which always has the clone
 * credentials (other steps have them unless the runner keeps them for the clone step).
 */
function runEnvironments(
  input: CompileInput,
  workspace: Workspace,
  secretValues: ReadonlyMap<string, string | undefined>,
): { environ: EnvironmentLayers; cloneEnviron: EnvironmentLayers } {
  const environ = new EnvironmentLayers().plain(input.runner.environ);
  for (const variable of input.pluginEnviron ?? []) {
    if (variable.mask) environ.secret(variable.name, variable.name.toLowerCase(), variable.data);
    else environ.plain({ [variable.name]: variable.data });
  }
  environ
    .plain(input.build.params)
    .environment(input.pipeline.environment, secretValues)
    .plain(runEnviron(input, workspace));
  const cloneEnviron = environ.copy();
  if (input.netrc !== undefined) {
    const netrc = netrcEnviron(input.netrc);
    for (const layers of input.netrcCloneOnly ? [cloneEnviron] : [environ, cloneEnviron]) {
      layers.plain(netrc.envs);
      for (const [env, value] of Object.entries(netrc.secrets)) layers.secret(env, env.toLowerCase(), value);
    }
  }
  return { environ, cloneEnviron };
}

/** Looks up every secret the pipeline names, once each. */
async function resolveSecrets(input: CompileInput): Promise<Map<string, string | undefined>> {
  const names = new Set<string>(input.pipeline.imagePullSecrets);
  const collect = (values: Iterable<{ kind: string; secret?: string }>): void => {
    for (const value of values)
      if (value.kind === 'secret' && value.secret !== undefined) names.add(value.secret);
  };
  collect(Object.values(input.pipeline.environment));
  if (input.pipeline.server !== undefined) collect(Object.values(input.pipeline.server));
  for (const step of [...input.pipeline.services, ...input.pipeline.steps]) {
    collect(Object.values(step.environment));
    collect(Object.values(step.settings));
  }
  const values = new Map<string, string | undefined>();
  for (const name of names) {
    const external = input.secretDocuments.find((document) => document.name === name);
    values.set(name, await input.secrets({ name, external }));
  }
  return values;
}

/** Registry credentials from `image_pull_secrets` (Docker config.json contents). */
function pullCredentials(
  pipeline: Pipeline,
  values: ReadonlyMap<string, string | undefined>,
  warn: (message: string) => void,
): RegistryAuth[] {
  return pipeline.imagePullSecrets.flatMap((name) => {
    const value = values.get(name);
    if (value === undefined) {
      warn(`image pull secret "${name}" was not found; private images are pulled without credentials`);
      return [];
    }
    try {
      return parseDockerConfig(value);
    } catch (error) {
      warn(`image pull secret "${name}" ${error instanceof Error ? error.message : String(error)}`);
      return [];
    }
  });
}

/**
 * The `server:` block of a `type: ssh` pipeline with its secrets' values. As in Drone, a secret
 * that is not found is an empty value (a file may name both a password and a key secret, and a
 * repository have only one of them), with a warning; a host without an address is an error.
 */
function hostOf(
  pipeline: Pipeline,
  secrets: ReadonlyMap<string, string | undefined>,
  warn: (message: string) => void,
): ExecHost | string | undefined {
  const server = pipeline.server;
  if (pipeline.type !== 'ssh' || server === undefined) return undefined;
  const valueOf = (field: string, value: EnvValue): string => {
    if (value.kind === 'value') return value.value;
    const found = secrets.get(value.secret);
    if (found === undefined)
      warn(`server.${field}: the secret "${value.secret}" was not found, so it is empty`);
    return found ?? '';
  };
  const host: ExecHost = {
    address: valueOf('host', server.host),
    user: valueOf('user', server.user),
    password: valueOf('password', server.password),
    privateKey: valueOf('ssh_key', server.sshKey),
  };
  if (host.address.trim() === '') return 'server.host: the stage has no host to run on';
  return host;
}
