import { useFolding } from '../components/log-folding.js';
import { useLogLines } from '../components/log-lines.js';
import { LogView } from '../components/log-view.js';
import { duration, Status } from '../components/status.js';
import { ErrorNote } from '../components/load.js';
import { Link } from '../router.js';
import { DONE, type Stage, type Step } from '../wire.js';

/**
 * The chosen step's log beside the stages, live while it runs (the same stream as its own page),
 * its sections folded as there; its own page has the search, the line links and the download.
 */
export function StepLogPanel(props: {
  slug: string;
  number: number;
  stage: Stage | undefined;
  step: Step | undefined;
}) {
  const { stage, step } = props;
  if (stage === undefined || step === undefined)
    return (
      <section class="step-log empty" aria-label="step log">
        <p class="muted">The steps and their logs show here once a runner takes a stage.</p>
      </section>
    );
  return <ChosenLog {...props} stage={stage} step={step} />;
}

function ChosenLog({
  slug,
  number,
  stage,
  step,
}: {
  slug: string;
  number: number;
  stage: Stage;
  step: Step;
}) {
  const path = `/api/repos/${slug}/builds/${number}/logs/${stage.number}/${step.number}`;
  const running = step.status === 'pending' ? undefined : !DONE.has(step.status);
  const { lines, error, live } = useLogLines(path, running);
  const folding = useFolding(lines);
  return (
    <section class="step-log" aria-label={`log of ${step.name}`}>
      <h2>
        {step.name} <Status status={step.status} />{' '}
        <span class="muted">{duration(step.started, step.stopped)}</span>
      </h2>
      <p class="muted">
        {stage.name} · {lines.length.toLocaleString()} lines{live ? ' · live' : ''} ·{' '}
        <Link href={`/${slug}/${number}/${stage.number}/${step.number}`}>Full log</Link>
      </p>
      <ErrorNote error={error} />
      {running === undefined ? (
        <p class="muted">Not started yet.</p>
      ) : (
        <LogView lines={lines} follow={live} folding={folding} />
      )}
    </section>
  );
}
