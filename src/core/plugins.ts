import type { Build } from './build.js';
import type { Repo } from './repo.js';

/** A pipeline file on its way to becoming a build: what the convert and validate plugins see. */
export interface PipelineFileRequest {
  repo: Repo;
  /** The build the file would become (not stored yet: `id` is 0). */
  build: Build;
  /** The file's path in the repository. */
  path: string;
  text: string;
}

/** Rewrites or generates pipeline files (SVC_CONVERT_PLUGIN_*), before they are parsed. */
export interface ConvertPlugin {
  /** The converted text, or undefined when the plugin leaves the file as it is. */
  convert(request: PipelineFileRequest): Promise<string | undefined>;
}

/** What a validation plugin says of a pipeline file. */
export type Validation =
  | { verdict: 'valid' }
  /** No build: the plugin asks to skip this change. */
  | { verdict: 'skip'; reason: string }
  /** A build that waits for approval (`blocked`) before it runs. */
  | { verdict: 'block'; reason: string }
  /** A build in state `error` saying why. */
  | { verdict: 'invalid'; message: string };

/** Custom checks of pipeline files (SVC_VALIDATE_PLUGIN_*), after conversion, before a build runs. */
export interface ValidatePlugin {
  validate(request: PipelineFileRequest): Promise<Validation>;
}

/** A secret a `kind: secret` document asks the secret plugin for (SVC_SECRET_PLUGIN_*). */
export interface ExternalSecretRequest {
  /** `get.path` and `get.name` of the document. */
  path: string;
  name: string;
  /** The repository and build, as the runner protocol shapes them (Drone's JSON). */
  repo: Readonly<Record<string, unknown>>;
  build: Readonly<Record<string, unknown>>;
}

/** Finds secrets kept outside svc (a vault), for `kind: secret` documents. */
export interface SecretPlugin {
  /**
   * The secret's value, and whether pull request builds may have it; undefined when the plugin has
   * no such secret. Throws an SvcError naming the plugin when it fails or does not answer.
   */
  find(request: ExternalSecretRequest): Promise<{ data: string; pullRequest: boolean } | undefined>;
}

/** Registry credentials a registry plugin gives a build (SVC_REGISTRY_PLUGIN_*). */
export interface RegistryPlugin {
  /** The credentials for the build's images; empty when the plugin has none. Throws an SvcError naming the plugin. */
  list(request: {
    repo: Readonly<Record<string, unknown>>;
    build: Readonly<Record<string, unknown>>;
  }): Promise<{ address: string; username: string; password: string }[]>;
}

/** A variable an environment plugin gives every step of a build; `mask` hides its value in logs. */
export interface PluginVariable {
  name: string;
  data: string;
  mask: boolean;
}

/** Variables for every step of a build (SVC_ENV_PLUGIN_*). */
export interface EnvironPlugin {
  /** The variables; empty when the plugin has none. Throws an SvcError naming the plugin. */
  list(request: {
    repo: Readonly<Record<string, unknown>>;
    build: Readonly<Record<string, unknown>>;
  }): Promise<PluginVariable[]>;
}
