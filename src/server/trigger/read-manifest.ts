import {
  diagnosticText,
  lintSubstituted,
  substitutionLookup,
  type Diagnostic,
  type Pipeline,
} from '../../pipeline/index.js';
import type { FileReadings } from '../../pipeline/index.js';

/** A pipeline file made ready for a build, or the errors that make the build fail. */
export type ReadManifest =
  { ok: true; text: string; pipelines: Pipeline[] } | { ok: false; text: string; error: string };

/**
 * Substitutes the build variables in the raw file, then parses and lints the result, as Drone does
 * (`lintSubstituted`, which `svc exec` uses too, so that a local run means what a build means).
 * Multi-line values are quoted onto one line, so line numbers in messages are those of the file.
 */
export function readManifest(
  raw: string,
  variables: Readonly<Record<string, string>>,
  trusted: boolean,
  readings?: FileReadings,
): ReadManifest {
  const linted = lintSubstituted(raw, substitutionLookup(variables), {
    trusted,
    ...(readings === undefined ? {} : { readings }),
  });
  const errors = linted.diagnostics.filter((diagnostic) => diagnostic.severity === 'error');
  if (errors.length > 0) return { ok: false, text: linted.text, error: errors.map(describe).join('\n') };
  const pipelines = linted.manifest.documents.filter(
    (document): document is Pipeline => document.kind === 'pipeline',
  );
  if (pipelines.length === 0) {
    return {
      ok: false,
      text: linted.text,
      error: 'the pipeline file has no pipeline (no document with kind: pipeline)',
    };
  }
  return { ok: true, text: linted.text, pipelines };
}

function describe(diagnostic: Diagnostic): string {
  return `line ${diagnostic.line}, column ${diagnostic.column}: ${diagnosticText(diagnostic)}`;
}
