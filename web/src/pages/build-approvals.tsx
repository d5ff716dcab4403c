import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { ActionButton } from '../components/action.js';
import type { Loaded } from '../components/load.js';
import { Ago } from '../components/status.js';
import type { Approval, Stage } from '../wire.js';

/**
 * What a stage waiting for approval shows: where it deploys, how many approvals it has of how many,
 * when it will be declined unless approved, and Approve / Decline with an optional comment.
 */
export function StageApproval(props: {
  stage: Stage;
  /** The build's stages: those deploying to the same environment are approved together. */
  stages: readonly Stage[];
  path: string;
  approvals: readonly Approval[];
  changed: () => void;
}) {
  const { stage } = props;
  const [comment, setComment] = useState('');
  const deployment = stage.deployment;
  const waits = deployment !== undefined && !deployment.approved;
  const together = new Set(
    props.stages
      .filter((s) => waits && s.deployment?.environment === deployment.environment && !s.deployment.approved)
      .map((s) => s.number),
  );
  const given = new Set(
    props.approvals.filter((a) => a.decision === 'approve' && together.has(a.stage)).map((a) => a.login),
  ).size;
  const body = () => ({ comment });
  const done = () => {
    setComment('');
    props.changed();
  };
  return (
    <div class="approval" role="group" aria-label={`approval of ${stage.name}`}>
      <p>
        {waits ? (
          <>
            Deploys to <strong>{deployment.environment}</strong>: {given} of {deployment.approvals_required}{' '}
            approvals by different people.{' '}
            {deployment.deadline > 0 ? (
              <span class="muted">
                Declined at {new Date(deployment.deadline * 1000).toLocaleString()} unless approved.
              </span>
            ) : null}
          </>
        ) : (
          'Waits for someone with write access to approve it.'
        )}
      </p>
      <div class="toolbar">
        <label>
          Comment{' '}
          <input
            value={comment}
            maxLength={1000}
            onInput={(e) => setComment(e.currentTarget.value)}
            placeholder="optional"
          />
        </label>
        <ActionButton
          label="Approve"
          run={() => api('POST', `${props.path}/approve/${stage.number}`, body())}
          done={done}
        />
        <ActionButton
          label="Decline"
          kind="danger"
          run={() => api('POST', `${props.path}/decline/${stage.number}`, body())}
          done={done}
        />
      </div>
    </div>
  );
}

const VERB = { approve: 'approved', decline: 'declined', timeout: 'timed out' } as const;

/** Every decision on the build's stages: who, which stage, when, and their comment. */
export function ApprovalList({
  approvals,
  stages,
}: {
  approvals: Loaded<Approval[]>;
  stages: readonly Stage[];
}) {
  const list = approvals.value ?? [];
  if (list.length === 0) return null;
  const nameOf = (number: number) => stages.find((s) => s.number === number)?.name ?? `stage ${number}`;
  return (
    <section aria-label="approvals">
      <h2>Approvals</h2>
      <ul class="approvals">
        {list.map((a) => (
          <li key={a.id}>
            <strong>{a.login || 'Nobody'}</strong> {VERB[a.decision]} <em>{nameOf(a.stage)}</em>{' '}
            <span class="muted" title={new Date(a.created * 1000).toLocaleString()}>
              <Ago seconds={a.created} />
            </span>
            {a.comment ? <q>{a.comment}</q> : null}
          </li>
        ))}
      </ul>
    </section>
  );
}
