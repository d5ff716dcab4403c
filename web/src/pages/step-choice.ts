import type { Stage } from '../wire.js';

/** A step of the build, by its stage's number and its own. */
export interface StepRef {
  stage: number;
  step: number;
}

const FAILED = new Set(['failure', 'error', 'killed']);

/** `?step=2.1`: a stage and step number. */
function namedStep(search: string): StepRef | undefined {
  const match = /^(\d+)\.(\d+)$/.exec(new URLSearchParams(search).get('step') ?? '');
  return match === null ? undefined : { stage: Number(match[1]), step: Number(match[2]) };
}

/**
 * The step whose log the build page shows: the one the address names (`?step=`), else the first
 * that failed — what someone opening a red build came for — else the first running, else the last
 * that ran. Undefined while no step has run.
 */
export function chosenStep(stages: readonly Stage[], search: string): StepRef | undefined {
  const all = stages.flatMap((stage) => (stage.steps ?? []).map((step) => ({ stage, step })));
  const named = namedStep(search);
  if (named !== undefined && all.some((s) => s.stage.number === named.stage && s.step.number === named.step))
    return named;
  const pick =
    all.find((s) => FAILED.has(s.step.status) && s.step.started > 0) ??
    all.find((s) => s.step.status === 'running') ??
    all.filter((s) => s.step.started > 0).at(-1);
  return pick === undefined ? undefined : { stage: pick.stage.number, step: pick.step.number };
}

/** The address that chooses a step on the build page. */
export function stepHref(base: string, ref: StepRef): string {
  return `${base}?step=${ref.stage}.${ref.step}`;
}
