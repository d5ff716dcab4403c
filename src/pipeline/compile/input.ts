import type { ShellShare } from './debug-shell.js';
import type { Build } from '../../core/build.js';
import type { ExecSpec } from '../../core/engine.js';
import type { Repo } from '../../core/repo.js';
import type { Stage } from '../../core/stage.js';
import type { Pipeline, SecretDocument } from '../types.js';

/** What the compiler reads of the repository. */
export type RepoFacts = Pick<
  Repo,
  | 'slug'
  | 'namespace'
  | 'name'
  | 'scm'
  | 'cloneUrl'
  | 'cloneUrlSsh'
  | 'link'
  | 'defaultBranch'
  | 'private'
  | 'visibility'
>;

/** What the compiler reads of the build (times in epoch milliseconds, 0 when not yet). */
export type BuildFacts = Pick<
  Build,
  | 'number'
  | 'parent'
  | 'event'
  | 'action'
  | 'trigger'
  | 'link'
  | 'title'
  | 'message'
  | 'before'
  | 'after'
  | 'ref'
  | 'source'
  | 'target'
  | 'authorLogin'
  | 'authorName'
  | 'authorEmail'
  | 'authorAvatar'
  | 'params'
  | 'cron'
  | 'deployTo'
  | 'deployId'
  | 'debug'
  | 'created'
  | 'started'
  | 'finished'
>;

/** What the compiler reads of the stage being run (the pipeline's record in the build). */
export type StageFacts = Pick<
  Stage,
  'name' | 'number' | 'os' | 'arch' | 'variant' | 'machine' | 'dependsOn' | 'started' | 'stopped'
>;

/** The server as steps see it (`DRONE_SYSTEM_*`). */
export interface SystemFacts {
  readonly proto: string;
  readonly host: string;
  readonly version: string;
}

/** Credentials for cloning (a `.netrc` entry); absent for public repositories. */
export interface Netrc {
  readonly machine: string;
  readonly login: string;
  readonly password: string;
}

/**
 * A secret a step asks for by name. When the file has a `kind: secret` document of that name,
 * `external` is it: the value comes from the external secret service at `external.get`.
 */
export interface SecretRequest {
  readonly name: string;
  readonly external: SecretDocument | undefined;
}

/** Finds a secret's value; undefined when there is no such secret (or the build may not have it). */
export type SecretResolver = (request: SecretRequest) => Promise<string | undefined> | string | undefined;

/** An OpenID Connect token the server signed for a step's `id_tokens` entry `env`. */
export interface IssuedIdToken {
  readonly step: string;
  readonly env: string;
  readonly token: string;
}

/** Resource limits set by the runner; 0 (or empty) means none. Bytes for memory, CFS units for CPU. */
export interface RunnerLimits {
  readonly memLimit: number;
  readonly memSwapLimit: number;
  readonly shmSize: number;
  readonly cpuPeriod: number;
  readonly cpuQuota: number;
  readonly cpuShares: number;
  readonly cpuSet: readonly string[];
}

/** The runner's own settings that shape every step it runs. */
export interface RunnerSettings {
  /** Variables every step gets (SVC_RUNNER_ENVIRON); the pipeline file can override them. */
  readonly environ: Readonly<Record<string, string>>;
  /** Host paths mounted in every step, each `host:container[:ro]`. */
  readonly volumes: readonly string[];
  /** Networks every step joins besides the stage network. */
  readonly networks: readonly string[];
  /** Images (any tag) that run privileged when used as plugins: no commands, entrypoint or volumes. */
  readonly privilegedImages: readonly string[];
  /** Image of the clone step; empty means `svc/git`. */
  readonly cloneImage: string;
  /** Caps on every step; a step may ask for less, never for more. */
  readonly limits: RunnerLimits;
  /** Host devices given to every step, each `host:container`. */
  readonly devices: readonly string[];
  /** Default workspace base when the file sets none; empty means `/drone/src` (what Drone uses). */
  readonly workspaceBase: string;
  /** tmate sessions in failed steps of debug builds (the Docker runner's SVC_SHELLSHARE_*); off when absent. */
  readonly shellShare?: ShellShare | undefined;
}

/** A runner that adds nothing: no variables, volumes, networks, limits or privileged images. */
export const DEFAULT_RUNNER_SETTINGS: RunnerSettings = {
  environ: {},
  volumes: [],
  networks: [],
  privilegedImages: [],
  cloneImage: '',
  limits: { memLimit: 0, memSwapLimit: 0, shmSize: 0, cpuPeriod: 0, cpuQuota: 0, cpuShares: 0, cpuSet: [] },
  devices: [],
  workspaceBase: '',
};

/** Everything the compiler needs to turn one pipeline of a build into an ExecSpec. */
export interface CompileInput {
  readonly pipeline: Pipeline;
  /** The `kind: secret` documents of the same file. */
  readonly secretDocuments: readonly SecretDocument[];
  /** Unique id of this run; step ids and labels derive from it. */
  readonly runId: string;
  /** Labels put on everything the run creates. */
  readonly labels: Readonly<Record<string, string>>;
  readonly repo: RepoFacts;
  readonly build: BuildFacts;
  readonly stage: StageFacts;
  readonly system: SystemFacts;
  readonly secrets: SecretResolver;
  readonly netrc: Netrc | undefined;
  /** Give the clone credentials to the clone step only (SVC_NETRC_CLONE_ONLY). */
  readonly netrcCloneOnly: boolean;
  readonly runner: RunnerSettings;
  /** The repository is trusted: privileged mode, host volumes, devices and network settings are allowed. */
  readonly trusted: boolean;
  /** The files the build changes, for `when: paths`; undefined when not known (those conditions hold). */
  readonly changedFiles?: readonly string[];
  /**
   * Registry credentials from the runner's registry plugin; the pipeline's `image_pull_secrets` come
   * first for a registry both name.
   */
  readonly registries?: readonly { address: string; username: string; password: string }[];
  /**
   * Variables from the runner's environment plugin: over the runner's own (SVC_RUNNER_ENVIRON),
   * under the file's; masked ones are secrets in every step.
   */
  readonly pluginEnviron?: readonly { name: string; data: string; mask: boolean }[];
  /**
   * The ID tokens the server signed for the steps' `id_tokens` (an svc addition); a step's request
   * without one here gets an empty variable and a warning (forks' pull requests, `svc exec`).
   */
  readonly idTokens?: readonly IssuedIdToken[];
  /** Epoch milliseconds; stands in for start times not known yet. */
  readonly now: number;
}

/**
 * The compiled stage, or why it cannot run. `warnings` are for the build log (e.g. a secret that was
 * not found and is handed to the step as an empty value, as Drone does).
 */
export type CompileResult =
  | { readonly ok: true; readonly spec: ExecSpec; readonly warnings: readonly string[] }
  | { readonly ok: false; readonly errors: readonly string[] };
