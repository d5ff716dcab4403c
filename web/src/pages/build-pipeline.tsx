import { useState } from 'preact/hooks';
import { StageGraph } from '../components/graph.js';
import { duration, Status } from '../components/status.js';
import { Waterfall } from '../components/waterfall.js';
import { Link, useSearch } from '../router.js';
import type { Approval, Build, Stage } from '../wire.js';
import { StageApproval } from './build-approvals.js';
import { StepLogPanel } from './build-step-log.js';
import { chosenStep, stepHref } from './step-choice.js';

/**
 * A build's Pipeline tab: the stage graph and each stage's steps on one side, the chosen step's log
 * on the other (`?step=`; the first failed step when none is named), live, without leaving the
 * page; then every step's timings as a waterfall. Narrow screens show them one under the other.
 */
export function PipelineView(props: {
  slug: string;
  build: Build;
  path: string;
  approvals: readonly Approval[];
  changed: () => void;
}) {
  const { slug, build } = props;
  const [focused, setFocused] = useState<string>();
  const stages = build.stages ?? [];
  const chosen = chosenStep(stages, useSearch());
  const stage = stages.find((s) => s.number === chosen?.stage);
  const step = stage?.steps?.find((s) => s.number === chosen?.step);
  const base = `/${slug}/${build.number}`;
  return (
    <>
      <div class="pipeline">
        <div class="pipeline-stages">
          <StageGraph stages={stages} select={(s) => setFocused(s.name)} />
          {stages.map((each) => (
            <StageView
              key={each.number}
              {...props}
              stage={each}
              focused={focused === each.name}
              base={base}
              chosen={each.number === chosen?.stage ? chosen.step : undefined}
            />
          ))}
        </div>
        <StepLogPanel slug={slug} number={build.number} stage={stage} step={step} />
      </div>
      <Waterfall stages={stages} now={Date.now() / 1000} />
    </>
  );
}

function StageView(props: {
  slug: string;
  build: Build;
  stage: Stage;
  path: string;
  approvals: readonly Approval[];
  focused: boolean;
  changed: () => void;
  /** The build page's address, and the number of this stage's step whose log is shown. */
  base: string;
  chosen: number | undefined;
}) {
  const { stage, build } = props;
  return (
    <section
      class={`stage${props.focused ? ' focused' : ''}`}
      id={`stage-${stage.number}`}
      aria-label={`stage ${stage.name}`}
    >
      <h2>
        {stage.name} <Status status={stage.status} />{' '}
        <span class="muted">{duration(stage.started, stage.stopped)}</span>
      </h2>
      {stage.pending_reason ? (
        <p class="reason">
          Waiting: {stage.pending_reason.message} <code>{stage.pending_reason.code}</code>
        </p>
      ) : null}
      {stage.error ? <p class="error">{stage.error}</p> : null}
      {stage.status === 'blocked' ? (
        <StageApproval
          stage={stage}
          stages={build.stages ?? []}
          path={props.path}
          approvals={props.approvals}
          changed={props.changed}
        />
      ) : stage.deployment ? (
        <p class="muted">
          Deploys to <strong>{stage.deployment.environment}</strong>
          {stage.deployment.approvals_required > 0
            ? stage.deployment.approved
              ? ', approved'
              : ', not approved'
            : ''}
          .
        </p>
      ) : null}
      <div class="steps">
        <ol>
          {(stage.steps ?? []).map((step) => (
            <li
              key={step.number}
              class={props.chosen === step.number ? 'chosen' : undefined}
              aria-current={props.chosen === step.number ? 'step' : undefined}
            >
              <Link href={stepHref(props.base, { stage: stage.number, step: step.number })} nav>
                {step.name}
              </Link>{' '}
              <Status status={step.status} />{' '}
              <span class="muted">{duration(step.started, step.stopped)}</span>
              {step.exit_code ? <span class="muted"> exit code {step.exit_code}</span> : null}
              {(step.attempts ?? 0) > 1 ? <span class="muted"> after {step.attempts} attempts</span> : null}
              {step.error !== '' && step.status !== 'skipped' ? (
                <span class="muted"> ({step.error})</span>
              ) : null}
            </li>
          ))}
        </ol>
      </div>
    </section>
  );
}
