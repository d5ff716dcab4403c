import { useEffect, useState } from 'preact/hooks';
import { ErrorNote, useApi } from '../components/load.js';
import { Status } from '../components/status.js';
import { Badge, CaseBadges, TestName, testHref } from '../components/test-badges.js';
import { millis } from '../components/units.js';
import { Link } from '../router.js';
import type { BuildTests, TestCounts, TestResult } from '../wire.js';

const PER_PAGE = 50;

/** The status filters, each with the count the button shows (undefined: every test). */
const FILTERS = [
  { id: undefined, label: 'All', count: 'total' },
  { id: 'failed', label: 'Failed', count: 'failed' },
  { id: 'new', label: 'New failures', count: 'new' },
  { id: 'quarantined', label: 'Quarantined', count: 'quarantined' },
  { id: 'flaky', label: 'Flaky', count: 'flaky' },
  { id: 'skipped', label: 'Skipped', count: 'skipped' },
  { id: 'passed', label: 'Passed', count: 'passed' },
] as const;
type Filter = (typeof FILTERS)[number]['id'];

/**
 * The build's tests from its reports (docs/test-reports.md): the counts, failures first with their
 * message and output, a search and status filters (the API's `q` and `status`), a page at a time.
 * A build without tests says how to get them. `tick` changes when the build does.
 */
export function TestSection(props: { slug: string; path: string; number: number; tick: number }) {
  const { slug, path, number, tick } = props;
  const [status, setStatus] = useState<Filter>(undefined);
  const [q, setQ] = useState('');
  const [page, setPage] = useState(1);
  const query = new URLSearchParams({ page: String(page), per_page: String(PER_PAGE) });
  if (status !== undefined) query.set('status', status);
  if (q !== '') query.set('q', q);
  const tests = useApi<BuildTests>(`${path}/tests?${query.toString()}`);
  const { reload } = tests;
  useEffect(() => {
    if (tick > 0) reload();
  }, [tick, reload]);
  if (tests.error !== undefined) return <ErrorNote error={tests.error} />;
  const value = tests.value;
  if (value === undefined) return <p class="muted">Reading the build’s tests…</p>;
  if (value.counts.total === 0 && q === '' && status === undefined) return <NoTests />;
  const pages = Math.max(1, Math.ceil(value.matching / PER_PAGE));
  return (
    <section class="tests" aria-label="tests">
      <h2>Tests</h2>
      <Summary counts={value.counts} />
      <div class="filters">
        <div role="group" class="toolbar" aria-label="filter tests by status">
          {FILTERS.map((filter) => (
            <button
              key={filter.label}
              type="button"
              aria-pressed={status === filter.id}
              onClick={() => {
                setStatus(filter.id);
                setPage(1);
              }}
            >
              {filter.label} <span class="count">{value.counts[filter.count]}</span>
            </button>
          ))}
        </div>
        <label>
          Search tests{' '}
          <input
            type="search"
            data-shortcut="search"
            value={q}
            maxLength={200}
            placeholder="suite or name"
            onInput={(e) => {
              setQ(e.currentTarget.value);
              setPage(1);
            }}
          />
        </label>
      </div>
      <p class="muted" aria-live="polite">
        {value.matching} {value.matching === 1 ? 'test' : 'tests'}
        {pages > 1 ? `, page ${page} of ${pages}` : ''}
      </p>
      <ul class="test-results" aria-label="test results">
        {value.tests.map((test) => (
          <ResultItem key={test.id} slug={slug} build={number} test={test} />
        ))}
      </ul>
      {pages > 1 ? (
        <nav class="pager" aria-label="test pages">
          <button type="button" disabled={page === 1} onClick={() => setPage(page - 1)}>
            Previous
          </button>
          <span>
            Page {page} of {pages}
          </span>
          <button type="button" disabled={page >= pages} onClick={() => setPage(page + 1)}>
            Next
          </button>
        </nav>
      ) : null}
    </section>
  );
}

function Summary({ counts }: { counts: TestCounts }) {
  return (
    <p class="test-counts" aria-label="test counts">
      <strong>{counts.total}</strong> tests: <span class="status-passed">{counts.passed} passed</span>,{' '}
      <span class={counts.failed > 0 ? 'status-failed' : undefined}>
        {counts.failed} failed{counts.new > 0 ? ` (${counts.new} new)` : ''}
      </span>
      , {counts.quarantined} quarantined, {counts.skipped} skipped, {counts.flaky} flaky
    </p>
  );
}

/** One test's result: its status, name (linking to its page), where it ran, and why it failed. */
function ResultItem({ slug, build, test }: { slug: string; build: number; test: TestResult }) {
  const failed = test.status === 'failed' || test.status === 'error';
  const log = `/${slug}/${build}/${test.stage.number}/${test.step.number}?find=${encodeURIComponent(test.case.name)}`;
  return (
    <li class={`test-result${failed ? ' failed' : ''}`}>
      <div class="test-line">
        <Status status={test.status} />{' '}
        <Link href={testHref(slug, test.case.id)} class="test-link">
          <TestName test={test.case} />
        </Link>{' '}
        {test.new ? <Badge kind="new">new</Badge> : null} <CaseBadges test={test.case} />{' '}
        <span class="muted">{millis(test.duration_ms)}</span>{' '}
        <span class="muted">
          {test.stage.name} › {test.step.name}
          {test.attempt > 1 ? `, attempt ${test.attempt}` : ''}
        </span>
        {failed ? (
          <>
            {' '}
            <Link href={log} aria-label={`log of ${test.case.name}`}>
              Log
            </Link>
          </>
        ) : null}
      </div>
      {test.message === '' ? null : <p class="test-message">{test.message}</p>}
      {test.output === '' ? null : (
        <details>
          <summary>Output{test.file === '' ? '' : ` (${test.file})`}</summary>
          <pre class="block">{test.output}</pre>
        </details>
      )}
    </li>
  );
}

/** The empty state: where tests come from, for a build whose steps uploaded no report. */
function NoTests() {
  return (
    <section class="tests empty" aria-label="tests">
      <h2>Tests</h2>
      <p>
        No test reports in this build. A step names its report files (JUnit XML, <code>go test -json</code>,
        TAP) under <code>artifacts: reports: junit:</code>, and its tests show here as it ends: see{' '}
        <a href="/docs/test-reports.md">docs/test-reports.md</a>.
      </p>
    </section>
  );
}
