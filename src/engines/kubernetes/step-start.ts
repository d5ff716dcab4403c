import type { ExecStep, OutputSink } from '../../core/engine.js';
import { stepState, unschedulable, type StepState } from './pod-state.js';
import type { PodWatcher } from './watcher.js';

/** How long a step's container may stay ended with the placeholder before its start counts as failed. */
const PLACEHOLDER_GRACE_MS = 20_000;

/** What waiting for a step's start needs of its stage. */
export interface StartWatch {
  watcher: PodWatcher;
  /** The scheduler's messages already written to a step's log (each is told once per stage). */
  told: Set<string>;
  /** How long the start may take (SVC_STEP_START_TIMEOUT). */
  timeout: number;
}

/**
 * Waits for the step's container to run its image. Pull trouble and an unschedulable pod are
 * written to the step's log as Kubernetes explains them; a permanent failure, or no start within
 * the start timeout, fails the step.
 */
export async function stepStarted(
  run: StartWatch,
  container: string,
  step: ExecStep,
  output: OutputSink,
  stop: AbortSignal,
): Promise<void> {
  const timeout = run.timeout;
  const expired = AbortSignal.timeout(timeout);
  let last: StepState | undefined;
  let ended: number | undefined;
  try {
    await run.watcher.until(
      (pod) => {
        const scheduling = unschedulable(pod);
        if (scheduling !== undefined && !run.told.has(scheduling)) {
          run.told.add(scheduling);
          output(`svc: Kubernetes cannot schedule the pod yet: ${scheduling}`);
        }
        const state = stepState(pod, container, step.image);
        if (state.kind === 'pulling-failed' && (last?.kind !== state.kind || last.message !== state.message))
          output(`svc: Kubernetes cannot pull ${step.image} (${state.reason}): ${state.message}`);
        last =
          scheduling === undefined
            ? state
            : { kind: 'waiting', reason: 'Unschedulable', message: scheduling };
        // Under restartPolicy Never a kubelet that cannot start the new image leaves the container
        // terminated: a placeholder ended for long is a start that failed.
        if (state.kind !== 'placeholder-ended') ended = undefined;
        else if (ended === undefined) ended = Date.now();
        else if (Date.now() - ended >= PLACEHOLDER_GRACE_MS)
          throw new Error(
            `Kubernetes did not start the step's image ${step.image}: its container stopped (${state.reason}: ${state.message}) and none followed`,
          );
        if (state.kind === 'failed')
          throw new Error(`Kubernetes cannot start the step's container: ${state.reason}: ${state.message}`);
        return state.kind === 'running' || state.kind === 'exited' ? true : undefined;
      },
      AbortSignal.any([stop, expired]),
    );
  } catch (error) {
    if (!expired.aborted || stop.aborted) throw error;
    const why =
      last === undefined || !('message' in last)
        ? ''
        : `: ${last.reason}${last.message === '' ? '' : `: ${last.message}`}`;
    throw new Error(`the step did not start within ${Math.round(timeout / 1000)} s${why}`, {
      cause: error,
    });
  }
}
