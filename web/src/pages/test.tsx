import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { ActionButton } from '../components/action.js';
import { Show, useApi } from '../components/load.js';
import { Ago } from '../components/status.js';
import { CaseBadges, TestName } from '../components/test-badges.js';
import { HistoryTable, TestStrip } from '../components/test-strip.js';
import { Link } from '../router.js';
import type { TestCaseDetail, TestHistory } from '../wire.js';

/**
 * `/{owner}/{name}/tests/{id}`: one test of the repository (docs/test-reports.md): its suite and
 * name, whether it is flaky or quarantined, its last results as a strip and a table, who
 * quarantined it or lifted it and why, and Quarantine / Lift quarantine (write access).
 */
export function TestPage({ owner, name, id }: { owner: string; name: string; id: number }) {
  const slug = `${owner}/${name}`;
  const path = `/api/repos/${slug}/tests/${id}`;
  const detail = useApi<TestCaseDetail>(path);
  const history = useApi<TestHistory[]>(`${path}/history`);
  return (
    <main>
      <p class="crumbs">
        <Link href={`/${slug}`}>{slug}</Link> › <Link href={`/${slug}/tests`}>Tests</Link>
      </p>
      <Show loaded={detail}>
        {(test) => (
          <>
            <h1 class="test-title">
              <TestName test={test} /> <CaseBadges test={test} />
            </h1>
            {test.flaky ? (
              <p class="muted">
                Failed and passed on one commit <Ago seconds={test.flaky_seen} />: its failures may not be the
                code’s.
              </p>
            ) : null}
            {test.quarantined ? (
              <p class="muted">Quarantined: its failures are shown and counted but do not fail its step.</p>
            ) : null}
          </>
        )}
      </Show>
      <section aria-label="history">
        <h2>Last results</h2>
        <Show loaded={history}>
          {(list) => (
            <>
              <TestStrip slug={slug} history={list} />
              <HistoryTable slug={slug} history={list} />
            </>
          )}
        </Show>
      </section>
      {detail.value === undefined ? null : (
        <Quarantine path={path} test={detail.value} changed={detail.reload} />
      )}
    </main>
  );
}

/** Quarantine or lift it, with a comment kept in the log; then the log, newest first. */
function Quarantine({ path, test, changed }: { path: string; test: TestCaseDetail; changed: () => void }) {
  const [comment, setComment] = useState('');
  const next = !test.quarantined;
  return (
    <section aria-label="quarantine">
      <h2>Quarantine</h2>
      <div class="toolbar" role="group" aria-label="change the quarantine">
        <label>
          Comment{' '}
          <input
            value={comment}
            maxLength={1000}
            onInput={(e) => setComment(e.currentTarget.value)}
            placeholder={next ? 'why (an issue, …)' : 'why it is fixed'}
          />
        </label>
        <ActionButton
          label={next ? 'Quarantine' : 'Lift quarantine'}
          kind={next ? 'danger' : undefined}
          run={() => api<TestCaseDetail>('PATCH', path, { quarantined: next, comment })}
          done={() => {
            setComment('');
            changed();
          }}
        />
      </div>
      {test.quarantine_log.length === 0 ? (
        <p class="muted">Never quarantined.</p>
      ) : (
        <ul class="approvals" aria-label="quarantine log">
          {test.quarantine_log.map((change, at) => (
            <li key={at}>
              <strong>{change.login || 'Nobody'}</strong>{' '}
              {change.quarantined ? 'quarantined it' : 'lifted its quarantine'}{' '}
              <span class="muted" title={new Date(change.created * 1000).toLocaleString()}>
                <Ago seconds={change.created} />
              </span>
              {change.comment ? <q>{change.comment}</q> : null}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
