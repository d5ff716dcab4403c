import type { Readable } from 'node:stream';

/**
 * The execution backend contract shared by every runner kind (docker, nomad, vm, kubernetes, ssh).
 * The compiler turns a pipeline into an ExecSpec; the runner core walks its step DAG and calls an
 * Engine, which only knows how to prepare, run one step, and clean up.
 */

/** Image pull policy of a step. `default` pulls when the image is missing (or tagged `latest`). */
export type PullPolicy = 'always' | 'if-not-exists' | 'never' | 'default';

/** When a step runs, given how the steps before it ended. */
export type RunPolicy = 'on-success' | 'on-failure' | 'always' | 'never';

/**
 * What a step's failure does to the stage: `fail` fails it, `ignore` (`failure: ignore`) does not,
 * `fast` (`failure: fast`) fails it and stops it at once: running steps are killed, the rest skipped.
 */
export type ErrPolicy = 'fail' | 'ignore' | 'fast';

/** A secret value handed to a step as an environment variable; its value is masked in every output line. */
export interface ExecSecret {
  /** The secret's name (for messages); never its value. */
  name: string;
  /** The environment variable the step reads it from. */
  env: string;
  data: string;
  /** Mask the value in logs (always true for secrets; false for plain values marked for masking). */
  mask: boolean;
}

/** A volume the stage creates and destroys (`temp`) or a path of the host (`host`; trusted only). */
export type ExecVolume =
  | { kind: 'temp'; name: string; medium: 'disk' | 'memory'; sizeLimit: number }
  | { kind: 'host'; name: string; path: string };

/** Where a named volume of the stage is mounted in a step. */
export interface ExecMount {
  name: string;
  path: string;
  /** Mounted read-only (`:ro` of a runner volume); read-write when absent. */
  readOnly?: boolean;
}

/**
 * A step's `cache:` (svc addition, docs/caches.md): restored before the step runs (unless the policy
 * is `push`), saved after it succeeds (unless `pull`). Build variables are substituted already;
 * `{{ checksum "FILE" }}` in `key` and `restoreKeys` is left for the runner, which hashes the
 * workspace's file when the step is about to run.
 */
export interface ExecCache {
  key: string;
  /** Key prefixes tried in order when `key` has no entry. */
  restoreKeys: string[];
  /** As written: relative to the workspace path (`node_modules`) or absolute (`/root/.npm`); no `..`. */
  paths: string[];
  policy: 'pull-push' | 'pull' | 'push';
}

/**
 * A step's `artifacts:` (svc addition, docs/artifacts.md): after the step, the workspace's files
 * matching `paths` are uploaded as one artifact of the stage, kept for `expireIn`.
 */
export interface ExecArtifacts {
  /** Unique within the stage; the step's name when the file gives none. */
  name: string;
  /** Globs relative to the workspace path (`dist/**`, `coverage/*.xml`); no `..`, never absolute. */
  paths: string[];
  /** Milliseconds the artifact is kept; 0: the server's default (SVC_ARTIFACT_MAX_AGE). */
  expireIn: number;
  /** Uploaded also when the step failed (`when: always`); otherwise only after success. */
  always: boolean;
  /** Test reports among the files (`reports: junit:`), globs as `paths`, for the test-reports work. */
  reports: { junit: string[] };
}

/** One step (or service, or the clone step) ready to run. */
export interface ExecStep {
  /** Unique within the run; engines derive container names from it. */
  id: string;
  name: string;
  image: string;
  pull: PullPolicy;
  /** Overrides the image's entrypoint when non-empty. */
  entrypoint: string[];
  /** Arguments (or, with commands, the shell and script); empty keeps the image's default. */
  command: string[];
  envs: Record<string, string>;
  secrets: ExecSecret[];
  /** Names of the steps that must finish first. */
  dependsOn: string[];
  runPolicy: RunPolicy;
  errPolicy: ErrPolicy;
  /** A detached step (or service) runs in the background and does not block its dependents. */
  detach: boolean;
  privileged: boolean;
  user: string;
  workingDir: string;
  mounts: ExecMount[];
  /** Extra networks to join besides the stage network (SVC_RUNNER_NETWORKS). */
  networks: string[];
  networkMode: string;
  dns: string[];
  dnsSearch: string[];
  extraHosts: string[];
  devices: string[];
  /** Resource limits; 0 means none. Bytes for memory and shm, CFS units for CPU. */
  memLimit: number;
  memSwapLimit: number;
  shmSize: number;
  cpuPeriod: number;
  cpuQuota: number;
  cpuShares: number;
  cpuSet: string[];
  /** Registry credentials for pulling the image, when needed. */
  auth?: { address: string; username: string; password: string } | undefined;
  /** Kill the step after this many milliseconds; 0 means the stage timeout alone applies. */
  timeout: number;
  labels: Record<string, string>;
  /** The step's cache (svc addition); absent when it has none. */
  cache?: ExecCache | undefined;
  /** The step's artifacts (svc addition); absent when it has none. */
  artifacts?: ExecArtifacts | undefined;
  /** When a failed attempt is run again (svc addition); absent when never. */
  retry?: ExecRetry | undefined;
}

/**
 * A step's `retry:`: up to `max` more attempts after the first, when an attempt exits with one of
 * `exitCodes` (any non-zero code when `anyExit`) or, with `infrastructure`, when the engine failed
 * it (an image not pulled, the engine unreachable) or killed it for memory.
 */
/** The id the engine gets for a step's `attempt`-th run (2, 3, …) under its `retry:`. */
export function attemptStepId(id: string, attempt: number): string {
  return `${id}-attempt-${attempt}`;
}

export interface ExecRetry {
  max: number;
  exitCodes: number[];
  anyExit: boolean;
  infrastructure: boolean;
}

/**
 * The machine a host pipeline runs on (`type: ssh`: its `server:` block, secrets resolved): an
 * address (`host` or `host:port`), the user, and a password or a private key (empty when not given).
 */
export interface ExecHost {
  address: string;
  user: string;
  password: string;
  privateKey: string;
}

/** Amounts of a Kubernetes container: CPU in millicpus, memory in bytes; 0 means none. */
export interface PodAmounts {
  cpu: number;
  memory: number;
}

/** A Kubernetes toleration, as the pod spec takes it. */
export interface PodToleration {
  key: string;
  operator: string;
  value: string;
  effect: string;
  /** Seconds; 0 when not set. */
  tolerationSeconds: number;
}

/**
 * What a `type: kubernetes` stage's pod is made of besides its steps: the pipeline's `metadata`,
 * `node_selector`, `tolerations`, `service_account_name`, `dns_config`, `host_aliases`, with the
 * runner's defaults and the matching policy applied (namespace rules already checked), and each
 * step's resources. Only the kubernetes engine reads it.
 */
export interface ExecPod {
  /** The namespace; `perStage` makes one for this execution only (SVC_NAMESPACE_DEFAULT `svc-`). */
  namespace: string;
  perStage: boolean;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  nodeSelector: Record<string, string>;
  tolerations: PodToleration[];
  serviceAccountName: string;
  dnsConfig: {
    nameservers: string[];
    searches: string[];
    options: { name: string; value: string }[];
  };
  hostAliases: { ip: string; hostnames: string[] }[];
  /** Requests and limits by step id (every step has an entry). */
  resources: Record<string, { requests: PodAmounts; limits: PodAmounts }>;
}

/** A compiled stage: everything an engine needs, nothing it must look up. */
export interface ExecSpec {
  /** Unique id of this run; every resource an engine creates carries it as a label. */
  runId: string;
  platform: { os: string; arch: string };
  /**
   * The shared workspace: mounted at `base` in every step; commands start in `path`. Normally a
   * fresh volume of the run; with `hostPath` (`svc exec`: the user's working copy) that host
   * directory is mounted at `base` instead, and engines must not create or remove anything for it.
   */
  workspace: { base: string; path: string; hostPath?: string | undefined };
  /** The clone step (if any), services and steps, in file order. */
  steps: ExecStep[];
  volumes: ExecVolume[];
  /** Labels put on every container, network and volume of the run (besides the run id). */
  labels: Record<string, string>;
  /** Where a `type: ssh` stage runs; absent for other pipelines. */
  host?: ExecHost | undefined;
  /** The pod of a `type: kubernetes` stage; absent for other pipelines. */
  pod?: ExecPod | undefined;
  /**
   * Stages of the same build whose artifacts are put into the workspace before the first step
   * (`artifacts: from:`, svc addition); absent or empty when none.
   */
  artifactsFrom?: string[] | undefined;
}

/** How one step ended. */
export interface StepExit {
  exitCode: number;
  /** The engine killed it for running out of memory. */
  oomKilled: boolean;
}

/**
 * Receives a step's output as it comes, line by line (without the newline). `room`, when the
 * receiver has it, paces a step that prints faster than its lines can be delivered: an engine that
 * can hold the output back (Docker's attach stream) asks after each chunk it passed on and reads
 * no more until the promise it gets resolves; undefined means go on. So the lines wait in the
 * step's own pipe, where the program blocks, instead of piling up behind it. A receiver never holds
 * a step back because its lines cannot be delivered at all (the server unreachable): it buffers.
 */
export type OutputSink = ((line: string) => void) & {
  readonly room?: () => Promise<void> | undefined;
};

/**
 * A step's filesystem while its container (or its place on a host) exists: what caches and
 * artifacts (svc additions) move in and out. Tars are uncompressed.
 */
export interface StepFiles {
  /** Extracts `tar`, whose entry names are paths from `/` without the leading slash, into the step. */
  put(tar: Readable, signal?: AbortSignal): Promise<void>;
  /**
   * A tar of the file or folder at `path` (absolute), its entries named from the path's last
   * segment as `docker cp` makes them; undefined when nothing is there.
   */
  get(path: string, signal?: AbortSignal): Promise<Readable | undefined>;
}

/**
 * What the runner core does with a step's files around its run. An engine calls `before` once the
 * step exists and before it starts, and `after` once it exited (not when it was aborted) and
 * before it is removed; the step's output stays open for both. Either may reject: the engine then
 * removes the step and rejects as for its own failures.
 */
export interface AroundStep {
  before(files: StepFiles): Promise<void>;
  after(files: StepFiles, exit: StepExit): Promise<void>;
}

/**
 * An execution backend. Lifecycle, for one ExecSpec:
 * 1. `setup` creates what the run shares (network, workspace volume, temp volumes). If it throws,
 *    the runner calls `destroy` and fails the stage.
 * 2. `run` is called once per step that should run, possibly concurrently for independent steps.
 *    It pulls the image per the step's policy, starts the step, streams every output line to `output`,
 *    and resolves when the step exits (for a detached step: as soon as it has started, with exit 0).
 *    Aborting `signal` stops the step promptly and rejects with an AbortError.
 *    A non-zero exit is a resolved StepExit, not a rejection; rejections mean the engine failed.
 * 3. `destroy` removes everything the run created — containers (also detached ones), networks,
 *    volumes — whether the run succeeded, failed or was cancelled. It never throws for leftovers
 *    that are already gone.
 */
export interface Engine {
  /** Whether `run` honours `around` (caches and artifacts); an engine without it ignores it. */
  readonly movesStepFiles?: boolean;
  /**
   * Whether a step that exited can run again (`retry:`), each attempt as a step of its own id (a
   * new container, new scripts). An engine that plans every step's container ahead (a pod) cannot.
   */
  readonly runsStepsAgain?: boolean;
  setup(spec: ExecSpec, signal?: AbortSignal): Promise<void>;
  run(
    spec: ExecSpec,
    step: ExecStep,
    output: OutputSink,
    signal?: AbortSignal,
    around?: AroundStep,
  ): Promise<StepExit>;
  destroy(spec: ExecSpec): Promise<void>;
}
