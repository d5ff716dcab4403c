import {
  lintManifest,
  parseManifest,
  sortDiagnostics,
  substituteVariables,
  substitutionLookup,
  diagnosticText,
  type Diagnostic,
  type Pipeline,
} from '../../pipeline/index.js';

/** A pipeline file made ready for a build, or the errors that make the build fail. */
export type ReadManifest =
  { ok: true; text: string; pipelines: Pipeline[] } | { ok: false; text: string; error: string };

/**
 * Substitutes the build variables in the raw file, then parses and lints the result, as Drone does.
 * The substituted text is linted with the parser and linter directly rather than with `lintText`:
 * that one re-checks `${…}` expressions, and after substitution `$${X}` has legitimately become `${X}`
 * (a shell expression for the step), which must not fail the build. Substitution never adds lines
 * (multi-line values are quoted onto one), so line numbers in messages are those of the user's file.
 */
export function readManifest(
  raw: string,
  variables: Readonly<Record<string, string>>,
  trusted: boolean,
): ReadManifest {
  const substituted = substituteVariables(raw, substitutionLookup(variables));
  if (!substituted.ok) {
    const { line, column } = positionOf(raw, substituted.error.offset);
    return { ok: false, text: raw, error: `line ${line}, column ${column}: ${substituted.error.message}` };
  }
  const text = substituted.text;
  const parsed = parseManifest(text);
  const errors = sortDiagnostics([
    ...parsed.diagnostics,
    ...lintManifest(parsed.manifest, { trusted }),
  ]).filter((diagnostic) => diagnostic.severity === 'error');
  if (errors.length > 0) return { ok: false, text, error: errors.map(describe).join('\n') };
  const pipelines = parsed.manifest.documents.filter(
    (document): document is Pipeline => document.kind === 'pipeline',
  );
  if (pipelines.length === 0) {
    return { ok: false, text, error: 'the pipeline file has no pipeline (no document with kind: pipeline)' };
  }
  return { ok: true, text, pipelines };
}

function describe(diagnostic: Diagnostic): string {
  return `line ${diagnostic.line}, column ${diagnostic.column}: ${diagnosticText(diagnostic)}`;
}

function positionOf(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  return { line: before.split('\n').length, column: offset - before.lastIndexOf('\n') };
}
