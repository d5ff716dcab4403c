import type { Step } from '../wire.js';

/**
 * When each step of a stage ran, as bars on one time axis: steps that ran side by side overlap.
 * Steps that did not start have no bar.
 */
export function Timeline({ steps, now }: { steps: readonly Step[]; now: number }) {
  const started = steps.filter((step) => step.started > 0);
  if (started.length === 0) return null;
  const from = Math.min(...started.map((s) => s.started));
  const to = Math.max(...started.map((s) => s.stopped || now), from + 1);
  const span = to - from;
  return (
    <div class="timeline" aria-hidden="true">
      {steps.map((step) =>
        step.started > 0 ? (
          <div key={step.number} class="lane">
            <span
              class={`bar status-${step.status}`}
              style={{
                marginLeft: `${((step.started - from) / span) * 100}%`,
                width: `${Math.max(0.5, (((step.stopped || now) - step.started) / span) * 100)}%`,
              }}
            />
          </div>
        ) : (
          <div key={step.number} class="lane" />
        ),
      )}
    </div>
  );
}
