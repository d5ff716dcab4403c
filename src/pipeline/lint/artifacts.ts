import type { Diagnostics } from '../diagnostics.js';
import { suggestName } from '../suggest.js';
import type { Pipeline, StepArtifacts } from '../types.js';

/** Reports two steps of a pipeline whose artifacts have one name (the later one, where it is named). */
export function checkArtifactNames(pipeline: Pipeline, diagnostics: Diagnostics): void {
  const first = new Map<string, { step: string; artifacts: StepArtifacts }>();
  for (const step of pipeline.steps) {
    const artifacts = step.artifacts;
    if (artifacts === undefined) continue;
    const earlier = first.get(artifacts.name);
    if (earlier === undefined) {
      first.set(artifacts.name, { step: step.name, artifacts });
      continue;
    }
    const { line, column } = earlier.artifacts.namePosition;
    diagnostics.error(
      artifacts.namePosition,
      `${step.field}.artifacts.name`,
      `artifact name "${artifacts.name}" is already used by step "${earlier.step}" at line ${line}, column ${column}; expected names unique within the pipeline (without name:, an artifact is called after its step), e.g. name: ${artifacts.name}-2`,
    );
  }
}

/**
 * Reports `artifacts: from:` entries that name no pipeline of the file, the pipeline itself, or a
 * pipeline it does not depend on (directly or through others): that one may not have run yet.
 */
export function checkArtifactsFrom(pipelines: readonly Pipeline[], diagnostics: Diagnostics): void {
  const byName = new Map(pipelines.map((pipeline) => [pipeline.name, pipeline]));
  const names = [...byName.keys()];
  for (const pipeline of pipelines) {
    const ancestors = dependencies(pipeline, byName);
    pipeline.artifactsFrom.forEach((name, index) => {
      const key = `artifacts.from[${index}]`;
      const at = pipeline.locations[key] ?? pipeline.position;
      if (name === pipeline.name) {
        diagnostics.error(
          at,
          key,
          `is this pipeline itself, whose artifacts do not exist before its first step; expected a pipeline this one depends on`,
        );
      } else if (!byName.has(name)) {
        const suggestion = suggestName(name, names);
        const hint =
          suggestion === undefined
            ? `expected a pipeline of this file: ${names.join(', ')}`
            : `did you mean "${suggestion}"?`;
        diagnostics.error(at, key, `unknown pipeline "${name}"; ${hint}`);
      } else if (!ancestors.has(name)) {
        diagnostics.error(
          at,
          key,
          `pipeline "${name}" is not in depends_on, so it may not have run yet when this pipeline starts; expected a pipeline this one depends on, e.g. depends_on: [${[...pipeline.dependsOn, name].join(', ')}]`,
        );
      }
    });
  }
}

/** The pipelines that finish before `pipeline` starts: its depends_on, theirs, and so on. */
function dependencies(pipeline: Pipeline, byName: ReadonlyMap<string, Pipeline>): Set<string> {
  const found = new Set<string>();
  const pending = [...pipeline.dependsOn];
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (found.has(name)) continue;
    found.add(name);
    pending.push(...(byName.get(name)?.dependsOn ?? []));
  }
  return found;
}
