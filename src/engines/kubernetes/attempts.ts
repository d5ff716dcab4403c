import { attemptStepId, type ExecSpec, type ExecStep } from '../../core/engine.js';

/**
 * The stage as its pod is planned: its steps, then a container for every further attempt a step's
 * `retry:` may make (`<id>-attempt-N`, the runner core's ids). A pod's containers are fixed when it
 * is created and each runs once, so an attempt that may come needs its own from the start; it
 * waits with the placeholder like any step not yet run. Appended after the steps, so that theirs
 * keep their names. Each gets its step's resources; the pod-wide settings (DNS, host aliases)
 * are the step's already.
 */
export function withAttempts(spec: ExecSpec): ExecSpec {
  const attempts = spec.steps.flatMap((step) => attemptsOf(step));
  if (attempts.length === 0) return spec;
  const resources = { ...spec.pod?.resources };
  for (const { step, attempt } of attempts) {
    const own = resources[step.id];
    if (own !== undefined) resources[attempt.id] = own;
  }
  return {
    ...spec,
    steps: [...spec.steps, ...attempts.map(({ attempt }) => attempt)],
    ...(spec.pod === undefined ? {} : { pod: { ...spec.pod, resources } }),
  };
}

function attemptsOf(step: ExecStep): { step: ExecStep; attempt: ExecStep }[] {
  if (step.retry === undefined || step.detach) return [];
  return Array.from({ length: step.retry.max }, (_, index) => ({
    step,
    attempt: { ...step, id: attemptStepId(step.id, index + 2), dns: [], dnsSearch: [], extraHosts: [] },
  }));
}
