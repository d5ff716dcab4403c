import type { ComponentChildren } from 'preact';
import { Show, useApi } from '../components/load.js';
import { percent } from '../components/chart-scale.js';
import { millis } from '../components/units.js';
import { Link, navigate, useSearch } from '../router.js';
import type { Insights } from '../wire.js';
import { BuildSections, StepSection, TestSections, UseSections } from './insights-sections.js';

const RANGES = [7, 30, 90] as const;
type Range = (typeof RANGES)[number];

/** The range in the query (`?days=7`), 30 days as the API's default. */
function rangeOf(search: string): Range {
  const days = Number(new URLSearchParams(search).get('days'));
  return RANGES.find((range) => range === days) ?? 30;
}

/** `/{owner}/{name}/insights`: a repository's build insights over 7, 30 or 90 days (`?days=`). */
export function RepoInsightsPage({ owner, name }: { owner: string; name: string }) {
  const slug = `${owner}/${name}`;
  return (
    <InsightsView
      title={
        <>
          <Link href={`/${slug}`}>{slug}</Link> › Insights
        </>
      }
      api={`/api/insights/repos/${slug}`}
      slug={slug}
    />
  );
}

/**
 * `/orgs/{org}/insights`: the insights of the organisation's repositories the account may read,
 * taken together (the API's 404 when it may read none of them).
 */
export function OrgInsightsPage({ org }: { org: string }) {
  return <InsightsView title={<>{org} › Insights</>} api={`/api/insights/orgs/${encodeURIComponent(org)}`} />;
}

function InsightsView(props: { title: ComponentChildren; api: string; slug?: string }) {
  const days = rangeOf(useSearch());
  const insights = useApi<Insights>(`${props.api}?days=${days}`);
  return (
    <main class="insights">
      <div class="toolbar">
        <h1>{props.title}</h1>
        <RangeSelector days={days} />
      </div>
      <Show loaded={insights}>
        {(value) =>
          value.builds.total === 0 ? (
            <p class="muted empty">No builds in the last {value.days} days.</p>
          ) : (
            <>
              <Summary insights={value} />
              <BuildSections insights={value} />
              <StepSection insights={value} />
              <TestSections insights={value} slug={props.slug} />
              <UseSections insights={value} />
            </>
          )
        }
      </Show>
    </main>
  );
}

/** 7, 30 or 90 days: buttons that put the range in the URL, so that a range can be linked to. */
function RangeSelector({ days }: { days: Range }) {
  return (
    <div class="range" role="group" aria-label="range">
      {RANGES.map((range) => (
        <button
          key={range}
          type="button"
          aria-pressed={range === days}
          onClick={() => navigate(`${location.pathname}?days=${range}`)}
        >
          {range} days
        </button>
      ))}
    </div>
  );
}

/** The range's totals: builds, success rate, durations, the queue's p95, the caches' hit rate. */
function Summary({ insights }: { insights: Insights }) {
  const { builds, caches } = insights;
  const items: [string, string][] = [
    ['Builds', String(builds.total)],
    ['Success rate', percent(builds.success_rate)],
    ['Duration p50', millis(builds.duration_p50_ms)],
    ['Duration p95', millis(builds.duration_p95_ms)],
    ['Queue p95', millis(builds.queue_p95_ms)],
    ['Cache hit rate', caches.hits + caches.misses === 0 ? '–' : percent(caches.hit_rate)],
  ];
  return (
    <dl class="summary" aria-label="summary">
      {items.map(([term, value]) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
