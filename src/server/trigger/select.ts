import { matchConditions, type MatchFacts, type Pipeline } from '../../pipeline/index.js';

/** A pipeline chosen for the build, with its dependencies rewired around the pipelines left out. */
export interface SelectedPipeline {
  readonly pipeline: Pipeline;
  readonly dependsOn: string[];
}

/**
 * The pipelines whose `trigger` matches the build, in file order. Drone's rule for dependencies on
 * pipelines that were left out: the dependency is replaced by that pipeline's own dependencies, walking
 * up until a selected pipeline is reached, so `c → b → a` with `b` left out becomes `c → a`, and a
 * pipeline whose every ancestor was left out can start at once.
 */
export function selectPipelines(pipelines: readonly Pipeline[], facts: MatchFacts): SelectedPipeline[] {
  const byName = new Map(pipelines.map((pipeline) => [pipeline.name, pipeline]));
  const selected = new Set(
    pipelines.filter((pipeline) => matchConditions(pipeline.trigger, facts)).map((p) => p.name),
  );
  const effective = (names: readonly string[], seen: Set<string>): string[] =>
    names.flatMap((name) => {
      const dependency = byName.get(name);
      // Unknown names and cycles are lint errors; the walk just must not loop on them.
      if (dependency === undefined || seen.has(name)) return [];
      if (selected.has(name)) return [name];
      return effective(dependency.dependsOn, new Set([...seen, name]));
    });
  return pipelines
    .filter((pipeline) => selected.has(pipeline.name))
    .map((pipeline) => ({
      pipeline,
      dependsOn: [...new Set(effective(pipeline.dependsOn, new Set([pipeline.name])))],
    }));
}
