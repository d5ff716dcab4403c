import type { ExecStep } from '../../core/engine.js';

/** Name of the step that clones the repository. */
export const CLONE_STEP = 'clone';

/**
 * Drone's rule for the order of steps: when no step (or service) uses `depends_on`, each one depends
 * on the one before it (clone → services → steps, in file order). Once any step uses `depends_on`, the
 * graph is the file's: steps without `depends_on` start right after the clone step (at once when
 * cloning is disabled); every other step reaches the clone step through its dependencies.
 */
export function wireDependencies(steps: ExecStep[], cloned: boolean): void {
  const graph = steps.some((step) => step.dependsOn.length > 0);
  if (!graph) {
    steps.forEach((step, index) => {
      const previous = steps[index - 1];
      step.dependsOn = previous === undefined ? [] : [previous.name];
    });
    return;
  }
  for (const step of steps) {
    if (cloned && step.name !== CLONE_STEP && step.dependsOn.length === 0) step.dependsOn = [CLONE_STEP];
    if (!cloned) step.dependsOn = step.dependsOn.filter((name) => name !== CLONE_STEP);
  }
}
