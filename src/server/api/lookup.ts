import type { Build, BuildStore } from '../../core/build.js';
import { NotFoundError } from '../../core/errors.js';
import type { StageStore } from '../../core/stage.js';
import type { Step, StepStore } from '../../core/step.js';

/** The repository's build with that number; NOT_FOUND otherwise. */
export async function findBuild(
  builds: Pick<BuildStore, 'findNumber'>,
  repoId: number,
  number: number,
): Promise<Build> {
  const build = await builds.findNumber(repoId, number);
  if (build === undefined) throw new NotFoundError(`build ${number}`);
  return build;
}

/** Step `step` of stage `stage` of the build (both 1-based numbers); NOT_FOUND otherwise. */
export async function findStep(
  stores: { readonly stages: Pick<StageStore, 'findNumber'>; readonly steps: Pick<StepStore, 'findNumber'> },
  build: Build,
  stage: number,
  step: number,
): Promise<Step> {
  const found = await stores.stages.findNumber(build.id, stage);
  if (found === undefined) throw new NotFoundError(`stage ${stage} of build ${build.number}`);
  const result = await stores.steps.findNumber(found.id, step);
  if (result === undefined) throw new NotFoundError(`step ${step} of stage ${stage}`);
  return result;
}
