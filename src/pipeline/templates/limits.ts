/**
 * How far templates may go, so that neither a template nor the file that loads it can hold the
 * server: a template's size (the API refuses larger ones), what one file's templates produce,
 * how many `kind: template` documents a file may hold, and a YAML template's work (steps of its
 * actions and loops) and nesting (`{{template}}` calls). Jsonnet and Starlark templates are bounded
 * by their languages' own limits (languages/limits.ts) as well.
 */
export interface TemplateLimits {
  readonly templateBytes: number;
  readonly outputBytes: number;
  readonly documents: number;
  readonly steps: number;
  readonly depth: number;
}

export const TEMPLATE_LIMITS: TemplateLimits = {
  templateBytes: 1_000_000,
  outputBytes: 1_000_000,
  documents: 20,
  steps: 1_000_000,
  depth: 100,
};
