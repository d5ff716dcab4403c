import type { Stage } from '../wire.js';
import { duration } from './status.js';

/**
 * When every step of the build ran, on one time axis from the build's first start: a row per step
 * (its stage, name and time), its bar where and as long as it ran, so that the slow steps and the
 * waits between stages show at a glance. The numbers are in the rows' text, not only in the bars.
 */
export function Waterfall({ stages, now }: { stages: readonly Stage[]; now: number }) {
  const rows = stages.flatMap((stage) =>
    (stage.steps ?? []).filter((step) => step.started > 0).map((step) => ({ stage, step })),
  );
  if (rows.length === 0) return null;
  const from = Math.min(...rows.map((r) => r.step.started));
  const to = Math.max(...rows.map((r) => r.step.stopped || now), from + 1);
  const span = to - from;
  return (
    <section class="waterfall" aria-label="timings">
      <h2>Timings</h2>
      <ol>
        {rows.map(({ stage, step }) => (
          <li key={`${stage.number}.${step.number}`}>
            <span class="label">
              <span class="muted">{stage.name} ›</span> {step.name}{' '}
              <span class="muted">{duration(step.started, step.stopped, now)}</span>
            </span>
            <span class="track" aria-hidden="true">
              <span
                class={`bar status-${step.status}`}
                style={{
                  marginLeft: `${((step.started - from) / span) * 100}%`,
                  width: `${Math.max(0.5, (((step.stopped || now) - step.started) / span) * 100)}%`,
                }}
              />
            </span>
          </li>
        ))}
      </ol>
    </section>
  );
}
