import type { ExecSpec, ExecStep } from '../../core/engine.js';

/** Label naming the run a container, network or volume belongs to. */
export const LABEL_RUN = 'io.svc.run';
/** Label naming the runner that created it (its SVC_RUNNER_NAME): leftovers are per runner. */
export const LABEL_OWNER = 'io.svc.owner';
/** Label naming the step a container runs. */
export const LABEL_STEP = 'io.svc.step';

/** Docker names allow [a-zA-Z0-9_.-] (and must start with a letter or digit). */
function safe(text: string): string {
  return text.replace(/[^a-zA-Z0-9_.-]/g, '-');
}

/** The labels of every resource of the run: the spec's own plus run and owner. */
export function runLabels(spec: ExecSpec, owner: string): Record<string, string> {
  return { ...spec.labels, [LABEL_RUN]: spec.runId, [LABEL_OWNER]: owner };
}

/** The label filter that selects everything of one run. */
export function runFilter(runId: string): { label: string[] } {
  return { label: [`${LABEL_RUN}=${runId}`] };
}

/**
 * Whether the run gets its own network. Only steps that can meet need one: a detached step or
 * service, or steps that may run at the same time. A strictly sequential stage (each step depends on
 * the one before, as Drone orders steps without `depends_on`) runs on Docker's default bridge, which
 * saves creating and removing a network, about 100 ms a stage.
 */
export function usesStageNetwork(spec: ExecSpec): boolean {
  if (spec.steps.some((step) => step.detach)) return true;
  const sequential = spec.steps.every((step, index) => {
    const previous = spec.steps[index - 1];
    if (previous === undefined) return step.dependsOn.length === 0;
    return step.dependsOn.length === 1 && step.dependsOn[0] === previous.name;
  });
  return !sequential;
}

/** Docker's default network, for runs without a network of their own. */
export const DEFAULT_NETWORK = 'bridge';

/** The stage network, which every step joins with its name as alias. */
export function networkName(spec: ExecSpec): string {
  return `svc-${safe(spec.runId)}`;
}

/** The volume holding the workspace, mounted at `spec.workspace.base` in every step. */
export function workspaceVolume(spec: ExecSpec): string {
  return `svc-${safe(spec.runId)}-workspace`;
}

/** The Docker volume behind a temp volume of the spec (medium disk). */
export function tempVolume(spec: ExecSpec, name: string): string {
  return `svc-${safe(spec.runId)}-vol-${safe(name)}`;
}

/** The container of a step: readable in `docker ps`, unique per run. */
export function containerName(spec: ExecSpec, step: ExecStep): string {
  return `svc-${safe(spec.runId)}-${safe(step.id)}`;
}
