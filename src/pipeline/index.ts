/**
 * The pipeline file: `.drone.yml`-compatible multi-document YAML. How the parts fit:
 * 0. a Jsonnet or Starlark file runs (languages/), or a YAML file's `kind: template` documents are
 *    rendered from the namespace's templates (templates/);
 * 1. the server substitutes `${…}` build variables in the raw text (`substituteVariables` with
 *    `substitutionLookup(buildEnviron(…))`), as Drone does before parsing;
 * 2. `parseManifest` reads the documents (YAML errors, types, unknown fields) and `lintManifest`
 *    checks the rules across them (names, depends_on, trust); `lintText` does both;
 * 3. `matchConditions` decides which pipelines a build runs (`trigger`) and `statusRunPolicy` when;
 * 4. at the runner, `compilePipeline` turns one pipeline into the ExecSpec an engine runs.
 */
export type {
  Condition,
  ConditionName,
  Conditions,
  Device,
  EnvValue,
  FailurePolicy,
  IdTokenRequest,
  JsonValue,
  KubernetesSettings,
  Manifest,
  ManifestDocument,
  Pipeline,
  PipelineType,
  Platform,
  SecretDocument,
  SettingValue,
  SignatureDocument,
  SshServer,
  Step,
  StepResources,
  TemplateDocument,
  Toleration,
  Volume,
  VolumeMount,
} from './types.js';
export { CONDITION_NAMES, PIPELINE_TYPES, needsImages, runsOnHost } from './types.js';
export type { Diagnostic, Locations, Position, Severity } from './diagnostics.js';
export { diagnosticText, sortDiagnostics } from './diagnostics.js';
export { parseManifest, type ParseResult } from './parse.js';
export { lintManifest, lintSubstituted, lintText, type LintOptions, type LintResult } from './lint/lint.js';
export { UNTRUSTED_FORBIDDEN } from './lint/untrusted.js';
export { FileReadings } from './lint/structure.js';
export {
  matchCondition,
  matchConditions,
  readsPaths,
  matchFacts,
  statusRunPolicy,
  type MatchFacts,
} from './match/conditions.js';
export { globMatch } from './match/glob.js';
export {
  substituteVariables,
  substitutionLookup,
  type SubstitutionError,
  type SubstitutionResult,
} from './substitute.js';
export { compilePipeline, SKIP_EXIT_CODE } from './compile/compile.js';
export { buildEnviron } from './compile/environ.js';
export {
  DEFAULT_RUNNER_SETTINGS,
  type BuildFacts,
  type CompileInput,
  type CompileResult,
  type IssuedIdToken,
  type Netrc,
  type RepoFacts,
  type RunnerLimits,
  type RunnerSettings,
  type SecretRequest,
  type SecretResolver,
  type StageFacts,
  type SystemFacts,
} from './compile/input.js';
