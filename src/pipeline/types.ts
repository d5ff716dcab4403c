import type { ExecCache, PullPolicy } from '../core/engine.js';
import type { Locations, Position } from './diagnostics.js';

/**
 * A pipeline file as svc reads it: the documents of a `.drone.yml`-style multi-document YAML file,
 * with every default applied. `position` is where an object starts and `locations` where each of its
 * fields is, for messages; nothing else depends on them.
 */
export interface Manifest {
  readonly documents: readonly ManifestDocument[];
}

/** One document of the file, by its `kind`. */
export type ManifestDocument = Pipeline | SecretDocument | SignatureDocument | TemplateDocument;

/** Pipeline types svc has runners for (`type:`; `docker` when absent). */
export const PIPELINE_TYPES = ['docker', 'kubernetes', 'ssh', 'exec', 'vm', 'macstadium'] as const;
/** One of PIPELINE_TYPES. */
export type PipelineType = (typeof PIPELINE_TYPES)[number];

/** Pipeline types whose steps are containers and so must name an image. */
export function needsImages(type: PipelineType): boolean {
  return type === 'docker' || type === 'kubernetes';
}

/** Pipeline types that run commands on a host or machine, without containers. */
export function runsOnHost(type: PipelineType): boolean {
  return type === 'ssh' || type === 'exec' || type === 'macstadium';
}

/** The conditions of `when` and `trigger` sections. */
export const CONDITION_NAMES = [
  'branch',
  'event',
  'ref',
  'repo',
  'instance',
  'target',
  'cron',
  'action',
  'status',
  'paths',
] as const;
/** One of CONDITION_NAMES. */
export type ConditionName = (typeof CONDITION_NAMES)[number];

/** Glob patterns one value must match (any include, when there are includes) and must not match (every exclude). */
export interface Condition {
  readonly include: readonly string[];
  readonly exclude: readonly string[];
}

/** A `when` (step) or `trigger` (pipeline) section; absent conditions have no patterns and match anything. */
export type Conditions = Readonly<Record<ConditionName, Condition>>;

/** An environment value: written in the file, or taken from a secret (`from_secret: name`). */
export type EnvValue =
  { readonly kind: 'value'; readonly value: string } | { readonly kind: 'secret'; readonly secret: string };

/** A YAML value as plain data. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A plugin setting: any YAML value, or a secret (`from_secret: name`). */
export type SettingValue =
  | { readonly kind: 'value'; readonly value: JsonValue }
  | { readonly kind: 'secret'; readonly secret: string };

/**
 * What a step's failure does: `fail` fails the pipeline, `ignore` (`failure: ignore`) does not,
 * `fast` (`failure: fast`) fails it and stops the rest of the stage at once.
 */
export type FailurePolicy = 'fail' | 'ignore' | 'fast';

/** Where a step mounts one of the pipeline's volumes. */
export interface VolumeMount {
  /** A volume of the pipeline's `volumes` section. */
  readonly name: string;
  /** Where it appears in the step's container. */
  readonly path: string;
}

/** A device of the host: `name` is a host volume of the pipeline, `path` the device path in the container. */
export interface Device {
  readonly name: string;
  readonly path: string;
}

/** Resource settings of a step; 0 (or empty) means not set. Bytes for memory, millicpus for `cpu`. */
export interface StepResources {
  readonly memLimit: number;
  readonly memSwapLimit: number;
  readonly shmSize: number;
  readonly cpuPeriod: number;
  readonly cpuQuota: number;
  readonly cpuShares: number;
  readonly cpuSet: readonly string[];
  readonly limits: { readonly cpu: number; readonly memory: number };
  readonly requests: { readonly cpu: number; readonly memory: number };
}

/**
 * An OpenID Connect token a step asks for (`id_tokens:`, an svc addition): the server signs it for
 * the step and the runner puts it in variable `env`. `audience` is the token's `aud`, one or more.
 */
export interface IdTokenRequest {
  readonly env: string;
  readonly audience: readonly string[];
  readonly position: Position;
}

/** When a cache is restored and saved: `pull-push` (both), `pull` (restore only), `push` (save only). */
export type CachePolicy = ExecCache['policy'];

/**
 * A step's cache (`cache:`, an svc addition): restored before the step runs, saved after it succeeds.
 * `{{ checksum "FILE" }}` in `key` and `restoreKeys` is kept for the runner; `paths` are as written,
 * relative to the workspace or absolute. `position` is where `cache:` is.
 */
export interface StepCache {
  readonly key: string;
  /** Key prefixes tried in order when `key` has no entry. */
  readonly restoreKeys: readonly string[];
  readonly paths: readonly string[];
  readonly policy: CachePolicy;
  readonly position: Position;
}

/**
 * A step's artifacts (`artifacts:`, an svc addition): files of the workspace uploaded after the step.
 * `name` is the step's name when the file gives none; `paths` and `junit` are globs relative to the
 * workspace (a leading `./` dropped). `expireIn` is in milliseconds, 0 when not given. `position` is
 * where `artifacts:` is, `namePosition` where the name is written (or `position`).
 */
export interface StepArtifacts {
  readonly name: string;
  readonly paths: readonly string[];
  readonly expireIn: number;
  /** Uploaded also when the step failed (`when: always`). */
  readonly always: boolean;
  readonly reports: { readonly junit: readonly string[] };
  readonly position: Position;
  readonly namePosition: Position;
}

/** A step or a service (services have the same shape and run detached). */
export interface Step {
  readonly name: string;
  /** The YAML path of the step in its document, e.g. `steps[2]`. */
  readonly field: string;
  readonly position: Position;
  readonly locations: Locations;
  readonly image: string;
  readonly pull: PullPolicy;
  readonly commands: readonly string[];
  readonly entrypoint: readonly string[];
  readonly command: readonly string[];
  readonly environment: Readonly<Record<string, EnvValue>>;
  readonly settings: Readonly<Record<string, SettingValue>>;
  readonly when: Conditions;
  readonly dependsOn: readonly string[];
  readonly detach: boolean;
  readonly failure: FailurePolicy;
  readonly privileged: boolean;
  readonly volumes: readonly VolumeMount[];
  readonly user: string;
  /** A numeric group id (`group:`, Drone's Kubernetes runner's runAsGroup); empty when not set. */
  readonly group: string;
  readonly workingDir: string;
  /** The shell that runs `commands`; empty means `/bin/sh`. */
  readonly shell: string;
  readonly networkMode: string;
  readonly dns: readonly string[];
  readonly dnsSearch: readonly string[];
  readonly extraHosts: readonly string[];
  readonly devices: readonly Device[];
  readonly resources: StepResources;
  /** The OpenID Connect tokens the step asks for (`id_tokens:`, an svc addition); empty when none. */
  readonly idTokens: readonly IdTokenRequest[];
  /** The step's cache (`cache:`, an svc addition); undefined when it has none (always for services). */
  readonly cache: StepCache | undefined;
  /** The step's artifacts (`artifacts:`, an svc addition); undefined when it has none (always for services). */
  readonly artifacts: StepArtifacts | undefined;
  /** The step's own time limit in milliseconds (`timeout:`, an svc addition); 0 when it has none. */
  readonly timeout: number;
  /** When and how often the step runs again after a failure (`retry:`, an svc addition); undefined when never. */
  readonly retry: StepRetry | undefined;
}

/**
 * A step's `retry:` (svc addition): `max` more attempts (1–5) after the first, when the attempt
 * failed with one of `exitCodes` (every non-zero code when `anyExit`) or when the runner or engine
 * failed it (`infrastructure`: the image could not be pulled, the container was killed for memory,
 * the engine broke off).
 */
export interface StepRetry {
  readonly max: number;
  readonly exitCodes: readonly number[];
  readonly anyExit: boolean;
  readonly infrastructure: boolean;
  readonly position: Position;
}

/** A volume the pipeline's steps can mount: temporary (`temp`, on disk or in memory) or a host path. */
export type Volume = (
  | { readonly kind: 'temp'; readonly medium: 'disk' | 'memory'; readonly sizeLimit: number }
  | { readonly kind: 'host'; readonly path: string }
) & {
  readonly name: string;
  /** The YAML path of the volume in its document, e.g. `volumes[1]`. */
  readonly field: string;
  readonly position: Position;
  readonly locations: Locations;
};

/** The `platform` section: where the pipeline must run. */
export interface Platform {
  readonly os: string;
  readonly arch: string;
  readonly variant: string;
  readonly version: string;
}

/** The `clone` section. */
export interface CloneSettings {
  readonly disable: boolean;
  /** Clone depth; 0 means the full history. */
  readonly depth: number;
  readonly retries: number;
  readonly skipVerify: boolean;
  readonly trace: boolean;
}

/** Fields only kubernetes pipelines use; parsed so that the kubernetes runner can apply them. */
export interface KubernetesSettings {
  readonly metadata: {
    readonly name: string;
    readonly namespace: string;
    readonly labels: Readonly<Record<string, string>>;
    readonly annotations: Readonly<Record<string, string>>;
  };
  readonly nodeSelector: Readonly<Record<string, string>>;
  readonly tolerations: readonly Toleration[];
  readonly serviceAccountName: string;
  readonly hostAliases: readonly { readonly ip: string; readonly hostnames: readonly string[] }[];
  readonly dnsConfig: {
    readonly nameservers: readonly string[];
    readonly searches: readonly string[];
    readonly options: readonly { readonly name: string; readonly value: string }[];
  };
}

/** A Kubernetes toleration of a kubernetes pipeline. */
export interface Toleration {
  readonly key: string;
  readonly operator: string;
  readonly value: string;
  readonly effect: string;
  /** Seconds; 0 when not set. */
  readonly tolerationSeconds: number;
}

/** The remote host of an ssh pipeline; each field may come from a secret. */
export interface SshServer {
  readonly host: EnvValue;
  readonly user: EnvValue;
  readonly password: EnvValue;
  readonly sshKey: EnvValue;
}

/** A `kind: pipeline` document. */
export interface Pipeline {
  readonly kind: 'pipeline';
  readonly type: PipelineType;
  /** `default` when the file gives none; a matrix's combination's is `name (AXIS=value, …)`. */
  readonly name: string;
  /** The combination of its `matrix:` (svc addition) this pipeline is; undefined for the others. */
  readonly matrix?: readonly (readonly [axis: string, value: string])[];
  readonly position: Position;
  readonly locations: Locations;
  /** As written; empty fields mean the runner's own (Drone defaults to linux/amd64). */
  readonly platform: Platform;
  /** Runner labels the pipeline must run on. */
  readonly node: Readonly<Record<string, string>>;
  readonly workspace: { readonly base: string; readonly path: string };
  readonly clone: CloneSettings;
  /** How many builds may run this pipeline at once; 0 means no limit. */
  readonly concurrency: { readonly limit: number };
  readonly environment: Readonly<Record<string, EnvValue>>;
  /** Secrets holding Docker `config.json` credentials for pulling private images. */
  readonly imagePullSecrets: readonly string[];
  readonly dependsOn: readonly string[];
  /**
   * Pipelines of the same build whose artifacts are put into the workspace before the first step
   * (`artifacts: from:`, an svc addition); empty when none. Each is at `locations['artifacts.from[i]']`.
   */
  readonly artifactsFrom: readonly string[];
  readonly trigger: Conditions;
  readonly steps: readonly Step[];
  readonly services: readonly Step[];
  readonly volumes: readonly Volume[];
  readonly kubernetes: KubernetesSettings;
  /** Only for `type: ssh`. */
  readonly server: SshServer | undefined;
  /** The machine pool of a `type: vm` pipeline (`pool: {use: name}`); empty otherwise. */
  readonly pool: string;
  /**
   * The deployment environment the pipeline deploys to (`environment: production`, a word where
   * Drone has a map of variables); empty when none. Its stage waits for the environment's approvals.
   */
  readonly deployment: string;
}

/** A `kind: secret` document: a secret fetched from an external secret service (`get`) or encrypted `data`. */
export interface SecretDocument {
  readonly kind: 'secret';
  readonly name: string;
  readonly position: Position;
  readonly get: { readonly path: string; readonly name: string; readonly key: string };
  readonly data: string;
}

/** A `kind: signature` document: the HMAC of the file, for repositories that require signed files. */
export interface SignatureDocument {
  readonly kind: 'signature';
  readonly name: string;
  readonly position: Position;
  readonly hmac: string;
}

/** A `kind: template` document: expands to pipelines from a template stored on the server. */
export interface TemplateDocument {
  readonly kind: 'template';
  readonly name: string;
  readonly position: Position;
  readonly load: string;
  readonly data: Readonly<Record<string, JsonValue>>;
}
