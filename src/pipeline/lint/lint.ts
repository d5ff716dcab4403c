import { Diagnostics, sortDiagnostics, type Diagnostic } from '../diagnostics.js';
import { parseManifest, parseManifestAndYaml } from '../parse.js';
import { cannotChangeStructure, type FileReadings } from './structure.js';
import { substituteVariables } from '../substitute.js';
import type { Manifest, Pipeline } from '../types.js';
import { checkArtifactNames, checkArtifactsFrom } from './artifacts.js';
import { checkDependencies } from './graph.js';
import { checkNames } from './names.js';
import { checkPipelineSections } from './pipeline.js';
import { checkSteps } from './steps.js';
import { structureChange } from './structure.js';
import { checkUntrusted } from './untrusted.js';
import { matrixAxes } from '../matrix/axes.js';

/** How to lint: as a trusted repository or not. */
export interface LintOptions {
  /** Trusted repositories may use privileged mode, host volumes, devices and host networking settings. */
  readonly trusted: boolean;
}

/**
 * The rules that span a document or the file: unique names, `depends_on` between steps and between
 * pipelines (unknown names, cycles), artifact names and `artifacts: from:`, images, volumes, what
 * untrusted repositories may not use.
 */
export function lintManifest(manifest: Manifest, options: LintOptions): Diagnostic[] {
  const diagnostics = new Diagnostics();
  const pipelines = manifest.documents.filter(
    (document): document is Pipeline => document.kind === 'pipeline',
  );
  checkNames(
    pipelines.map((pipeline) => ({
      name: pipeline.name,
      at: pipeline.locations.name ?? pipeline.position,
      field: '',
      implicit: pipeline.locations.name === undefined,
    })),
    'pipeline',
    'within a file',
    new Map(),
    diagnostics,
  );
  checkDependencies(
    pipelines.map((pipeline) => ({
      name: pipeline.name,
      dependsOn: pipeline.dependsOn,
      field: '',
      position: (index: number) => pipeline.locations[`depends_on[${index}]`] ?? pipeline.position,
    })),
    [],
    'pipeline',
    diagnostics,
  );
  checkArtifactsFrom(pipelines, diagnostics);
  for (const pipeline of pipelines) {
    checkPipelineSections(pipeline, diagnostics);
    checkSteps(pipeline, diagnostics);
    checkArtifactNames(pipeline, diagnostics);
    if (!options.trusted) checkUntrusted(pipeline, diagnostics);
  }
  return diagnostics.list();
}

/** A file read and linted: the manifest and every diagnostic, in file order. */
export interface LintResult {
  readonly manifest: Manifest;
  readonly diagnostics: readonly Diagnostic[];
  /** No errors (warnings allowed). */
  readonly valid: boolean;
}

/**
 * Parses and lints a pipeline file in one go, including the `${…}` expressions that the server
 * substitutes before parsing (a malformed one fails the build).
 */
export function lintText(text: string, options: LintOptions): LintResult {
  const parsed = parseManifest(text);
  const diagnostics = sortDiagnostics([
    ...substitutionDiagnostics(text),
    ...parsed.diagnostics,
    ...lintManifest(parsed.manifest, options),
  ]);
  return {
    manifest: parsed.manifest,
    diagnostics,
    valid: diagnostics.every((diagnostic) => diagnostic.severity === 'warning'),
  };
}

/**
 * A file as a build reads it: the `${…}` expressions substituted with the build's variables first
 * (Drone's order: `$${X}` becomes the shell's `${X}`), then parsed and linted. A malformed expression
 * is an error at its place in the file, and nothing more is read. Substitution never adds lines, so
 * positions are those of the file as written.
 */
export function lintSubstituted(
  raw: string,
  lookup: (name: string) => string | undefined,
  options: LintOptions & { readings?: FileReadings },
): LintResult & { text: string } {
  // A matrix's `${AXIS}` is its combinations' to fill in (parseManifest), not the build's.
  const axes = matrixAxes(raw);
  const keep = (name: string) => axes.has(name);
  let harmless = true;
  const inserted = (value: string) => {
    harmless &&= cannotChangeStructure(value);
  };
  const substituted = substituteVariables(raw, lookup, { keep, inserted });
  if (!substituted.ok) {
    return {
      text: raw,
      manifest: parseManifest('').manifest,
      diagnostics: [substitutionDiagnostic(raw, substituted.error)],
      valid: false,
    };
  }
  const { result: parsed, yaml } =
    options.readings?.parse(substituted.text) ?? parseManifestAndYaml(substituted.text);
  // Values that cannot move a key, an item or a document spare the file its author's reading.
  const changed = harmless ? undefined : structureChange(raw, substituted.text, keep, yaml, options.readings);
  const diagnostics = sortDiagnostics([
    ...(changed === undefined ? [] : [changed]),
    ...parsed.diagnostics,
    ...lintManifest(parsed.manifest, options),
  ]);
  return {
    text: substituted.text,
    manifest: parsed.manifest,
    diagnostics,
    valid: diagnostics.every((diagnostic) => diagnostic.severity === 'warning'),
  };
}

function substitutionDiagnostics(text: string): Diagnostic[] {
  const result = substituteVariables(text, () => '');
  return result.ok ? [] : [substitutionDiagnostic(text, result.error)];
}

function substitutionDiagnostic(text: string, error: { offset: number; message: string }): Diagnostic {
  const before = text.slice(0, error.offset);
  return {
    severity: 'error',
    line: before.split('\n').length,
    column: error.offset - before.lastIndexOf('\n'),
    field: '',
    message: `${error.message}; expected \${NAME} or a supported form such as \${NAME:0:8} (write $\${ for a literal \${)`,
  };
}
