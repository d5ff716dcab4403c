import { randomBytes } from 'node:crypto';
import { InvalidInputError, SvcError } from '../../core/errors.js';
import { comesFromFork } from '../../core/fork.js';
import type { ExecSpec } from '../../core/engine.js';
import type { EnvironPlugin, RegistryPlugin, SecretPlugin } from '../../core/plugins.js';
import {
  compilePipeline,
  diagnosticText,
  lintText,
  type Pipeline,
  type PipelineType,
  type RunnerSettings,
  type SecretDocument,
  type SecretResolver,
} from '../../pipeline/index.js';
import { matchFacts, type MatchFacts } from '../../pipeline/match/conditions.js';
import { matchesLimits, type RunnerLimits, type WireDetails } from '../client/wire/index.js';
import { buildFacts, repoFacts, stageFacts, systemFacts } from './facts.js';

/** The runner's own settings that shape every stage it prepares. */
export interface PrepareSettings {
  /** SVC_RUNNER_NAME: the machine steps see (DRONE_STAGE_MACHINE). */
  machine: string;
  /** Pipeline types this runner executes (`docker`). */
  types: readonly string[];
  /**
   * Types this runner takes as another of its types (the vm runner: `type: vm` as `macstadium`).
   * Such a pipeline runs its steps' commands on the machine: a step with an image is refused.
   */
  aliases?: Readonly<Record<string, PipelineType>>;
  runner: RunnerSettings;
  /** SVC_NETRC_CLONE_ONLY. */
  netrcCloneOnly: boolean;
  /** SVC_RUNNER_SECRETS: secrets every pipeline may use, after the build's own. */
  secrets: Readonly<Record<string, string>>;
  /** SVC_LIMIT_*: builds this runner refuses to run. */
  limits: RunnerLimits | undefined;
  /** Labels put on everything the stage creates. */
  labels: Readonly<Record<string, string>>;
  /** SVC_SECRET_PLUGIN_*: where the secrets of `kind: secret` documents come from. */
  secretPlugin?: SecretPlugin | undefined;
  /** SVC_REGISTRY_PLUGIN_*: registry credentials for the build's images. */
  registryPlugin?: RegistryPlugin | undefined;
  /** SVC_ENV_PLUGIN_*: variables for every step. */
  environPlugin?: EnvironPlugin | undefined;
  /**
   * The runner kind's own checks of a compiled stage and what it adds to it (the kubernetes runner:
   * namespace rules, policy, the pod); an error ends the stage before any step, like a lint error.
   */
  adapt?: ((stage: StageToAdapt) => { ok: true; spec: ExecSpec } | { ok: false; error: string }) | undefined;
}

/** What a runner kind's `adapt` sees: the pipeline as written, the compiled stage and the build's facts. */
export interface StageToAdapt {
  pipeline: Pipeline;
  spec: ExecSpec;
  facts: MatchFacts;
}

/** A stage ready to run, or why it cannot (the stage's error message). */
export type Prepared =
  { ok: true; spec: ExecSpec; warnings: readonly string[] } | { ok: false; error: string };

/**
 * Turns a stage's details into the ExecSpec to run, as Drone's runners do: check the runner may run
 * this build at all (its limits; Drone's message), read and lint the build's pipeline file (as the
 * repository's trust allows), pick the pipeline named like the stage, and compile it with the
 * build's facts, its secrets (then the runner's), the clone credentials and the runner's settings.
 */
export async function prepareStage(
  details: WireDetails,
  settings: PrepareSettings,
  now: number,
): Promise<Prepared> {
  const { repository: repo, build, stage } = details;
  if (settings.limits !== undefined && !matchesLimits(settings.limits, repo, build.event)) {
    return {
      ok: false,
      error: `insufficient permission to run the pipeline: this runner does not run ${build.event} builds of ${repo.slug}${repo.trusted ? '' : ' (untrusted)'}`,
    };
  }
  const text = Buffer.from(details.config.data, 'base64').toString('utf8');
  const linted = lintText(text, { trusted: repo.trusted });
  if (!linted.valid) {
    const errors = linted.diagnostics.filter((d) => d.severity === 'error');
    return {
      ok: false,
      error: errors.map((d) => `line ${d.line}, column ${d.column}: ${diagnosticText(d)}`).join('\n'),
    };
  }
  const pipelines = linted.manifest.documents.filter((doc): doc is Pipeline => doc.kind === 'pipeline');
  let pipeline = pipelines.find((p) => p.name === stage.name);
  if (pipeline === undefined) {
    return {
      ok: false,
      error: `the pipeline file has no pipeline named "${stage.name}" (it has: ${pipelines.map((p) => p.name).join(', ') || 'none'})`,
    };
  }
  if (!settings.types.includes(pipeline.type)) {
    return {
      ok: false,
      error: `pipeline "${pipeline.name}" is of type ${pipeline.type}; this runner runs ${settings.types.join(', ')} pipelines`,
    };
  }
  const alias = settings.aliases?.[pipeline.type];
  if (alias !== undefined) {
    const imaged = [...pipeline.services, ...pipeline.steps].find((step) => step.image !== '');
    if (imaged !== undefined)
      return {
        ok: false,
        error: `step "${imaged.name}" has an image, but this runner runs type: ${pipeline.type} pipelines as ${alias}: commands on the machine, without containers`,
      };
    pipeline = { ...pipeline, type: alias };
  }
  const secretDocuments = linted.manifest.documents.filter(
    (doc): doc is SecretDocument => doc.kind === 'secret',
  );
  let compiled;
  try {
    const about = { repo: details.repository, build: details.build };
    const [registries, pluginEnviron] = await Promise.all([
      settings.registryPlugin?.list(about),
      settings.environPlugin?.list(about),
    ]);
    compiled = await compilePipeline({
      pipeline,
      secretDocuments,
      runId: `stage-${stage.id}-${randomBytes(4).toString('hex')}`,
      labels: { ...settings.labels, 'io.svc.stage': String(stage.id), 'io.svc.repo': repo.slug },
      repo: repoFacts(repo),
      build: buildFacts(build),
      stage: stageFacts(stage, settings.machine, now),
      system: systemFacts(details),
      secrets: secretResolver(details, settings.secrets, settings.secretPlugin),
      netrc: details.netrc,
      // A fork's code runs in the steps: on a private repository the credentials would let it read
      // (or, with a write token, push to) the repository. The clone step alone gets them.
      netrcCloneOnly: settings.netrcCloneOnly || fromFork(details),
      runner: settings.runner,
      trusted: repo.trusted,
      // Step `when: paths`: the files the server had from the provider (absent: not known, they hold).
      ...(build.changed_files === undefined ? {} : { changedFiles: build.changed_files }),
      idTokens: details.id_tokens.map(({ step, name, data }) => ({ step, env: name, token: data })),
      now,
      ...(registries === undefined ? {} : { registries }),
      ...(pluginEnviron === undefined ? {} : { pluginEnviron }),
    });
  } catch (error) {
    // A secret, registry or environment plugin failed or did not answer: the stage lacks what it needs.
    if (error instanceof SvcError) return { ok: false, error: error.message };
    throw error;
  }
  if (!compiled.ok) return { ok: false, error: compiled.errors.join('\n') };
  if (settings.adapt !== undefined) {
    const facts = matchFacts(repoFacts(repo), buildFacts(build), details.system.host);
    const adapted = settings.adapt({ pipeline, spec: compiled.spec, facts });
    if (!adapted.ok) return adapted;
    return { ok: true, spec: adapted.spec, warnings: compiled.warnings };
  }
  return { ok: true, spec: compiled.spec, warnings: compiled.warnings };
}

/**
 * Finds a secret among the build's (from the server: already limited to what the build may use)
 * and then the runner's own, which builds of forks do not get. Encrypted inline values of
 * `kind: secret` documents come decrypted from the server with the build's secrets; a value the
 * server could not decrypt fails the stage, naming the secret. Other `kind: secret` documents
 * come from the secret plugin, as Drone's runners get them: pull requests only get those the plugin
 * marks for pull requests, and without a plugin they are not found.
 */
function secretResolver(
  details: WireDetails,
  runnerSecrets: Readonly<Record<string, string>>,
  plugin: SecretPlugin | undefined,
): SecretResolver {
  return async ({ name, external }) => {
    if (external !== undefined && external.data !== '') {
      // An encrypted inline value: the server decrypted it with the repository's key, which never
      // leaves the server (server/rpc/inline-secrets.ts), or says why it could not.
      const failed = details.secret_errors.find((error) => error.name === name);
      if (failed !== undefined) throw new InvalidInputError(failed.message);
      return details.secrets.find((secret) => secret.name === name)?.data;
    }
    if (external !== undefined) {
      if (plugin === undefined) return undefined;
      const found = await plugin.find({
        path: external.get.path,
        name: external.get.name,
        repo: details.repository,
        build: details.build,
      });
      if (found === undefined) return undefined;
      if (details.build.event === 'pull_request' && !found.pullRequest) return undefined;
      return found.data;
    }
    const fromServer = details.secrets.find((secret) => secret.name === name);
    if (fromServer !== undefined) return fromServer.data;
    if (fromFork(details)) return undefined;
    return Object.hasOwn(runnerSecrets, name) ? runnerSecrets[name] : undefined;
  };
}

/** The change comes from a fork: its code gets none of the runner's secrets either. */
function fromFork({ build, repository }: WireDetails): boolean {
  return comesFromFork({ event: build.event, sourceRepo: build.source_repo }, repository.slug);
}
