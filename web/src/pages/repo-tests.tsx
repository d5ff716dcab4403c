import { Show, useApi } from '../components/load.js';
import { Ago, Status } from '../components/status.js';
import { CaseBadges, TestName, testHref } from '../components/test-badges.js';
import { Link } from '../router.js';
import type { FlakyTest, TestCase } from '../wire.js';
import { TestSettingsSection } from './test-settings.js';

/**
 * `/{owner}/{name}/tests`: the repository's flaky tests (failed and passed on one commit in the
 * last 14 days), each with when it was last seen so and the evidence (each commit with its
 * builds' results), whether quarantine is on (opt-in), and its quarantined tests. Each test links
 * to its page.
 */
export function RepoTestsPage({ owner, name }: { owner: string; name: string }) {
  const slug = `${owner}/${name}`;
  const flaky = useApi<FlakyTest[]>(`/api/repos/${slug}/tests/flaky`);
  const quarantined = useApi<TestCase[]>(`/api/repos/${slug}/tests/quarantined`);
  return (
    <main>
      <h1>
        <Link href={`/${slug}`}>{slug}</Link> › Tests
      </h1>
      <section aria-label="flaky tests">
        <h2>Flaky tests</h2>
        <p class="muted">Tests that failed and passed on one commit in the last 14 days, latest first.</p>
        <Show loaded={flaky}>
          {(list) =>
            list.length === 0 ? (
              <p class="muted">
                No flaky tests: no test failed and passed on one commit in the last 14 days.
              </p>
            ) : (
              <ul class="cards">
                {list.map((test) => (
                  <FlakyCard key={test.id} slug={slug} test={test} />
                ))}
              </ul>
            )
          }
        </Show>
      </section>
      <TestSettingsSection slug={slug} />
      <section aria-label="quarantined tests">
        <h2>Quarantined tests</h2>
        <Show loaded={quarantined}>
          {(list) =>
            list.length === 0 ? (
              <p class="muted">No quarantined tests. A test's page quarantines it once quarantine is on.</p>
            ) : (
              <ul class="test-list">
                {list.map((test) => (
                  <li key={test.id}>
                    <Link href={testHref(slug, test.id)}>
                      <TestName test={test} />
                    </Link>{' '}
                    <CaseBadges test={test} />
                  </li>
                ))}
              </ul>
            )
          }
        </Show>
      </section>
    </main>
  );
}

function FlakyCard({ slug, test }: { slug: string; test: FlakyTest }) {
  return (
    <li class="card flaky" aria-label={`flaky test ${test.name}`}>
      <Link href={testHref(slug, test.id)} class="title">
        <TestName test={test} />
      </Link>
      <CaseBadges test={test} />
      <span class="muted" title={new Date(test.flaky_seen * 1000).toLocaleString()}>
        last seen <Ago seconds={test.flaky_seen} />
      </span>
      <ul class="evidence" aria-label="evidence">
        {test.evidence.map((commit) => (
          <li key={commit.commit}>
            <code>{commit.commit.slice(0, 10)}</code> →{' '}
            {commit.results.map((result, at) => (
              <span key={at} class="evidence-result">
                {at > 0 ? ', ' : null}
                <Link href={`/${slug}/${result.build}`}>
                  #{result.build}
                  {result.attempt > 1 ? ` attempt ${result.attempt}` : ''}
                </Link>{' '}
                <Status status={result.status} />
              </span>
            ))}
          </li>
        ))}
      </ul>
    </li>
  );
}
