import { BarList, StackedBars } from '../components/chart-bars.js';
import { LineChart } from '../components/chart-line.js';
import { niceDuration, percent } from '../components/chart-scale.js';
import { NumbersTable } from '../components/chart-table.js';
import { TestName, testHref } from '../components/test-badges.js';
import { millis } from '../components/units.js';
import { Link } from '../router.js';
import type { Insights, InsightTest } from '../wire.js';
import { Day, StepRow } from './insights-steps.js';

/** A value for the days that had builds; none (a gap in the line) for the others. */
const ifBuilt = (insights: Insights, value: (day: Insights['daily'][number]) => number) =>
  insights.daily.map((day) => (day.builds > 0 ? value(day) : undefined));

/** Build duration (p50, p95), success rate and time in the queue (p50, p95) per day. */
export function BuildSections({ insights }: { insights: Insights }) {
  const dates = insights.daily.map((day) => day.date);
  const range = `over the last ${insights.days} days`;
  const rows = insights.daily.map((day) => ({ key: day.date, day, built: day.builds > 0 }));
  return (
    <div class="charts">
      <section aria-label="build duration">
        <h2>Build duration</h2>
        <LineChart
          label={`Build duration per day, p50 and p95, ${range}`}
          dates={dates}
          series={[
            { name: 'p50', values: ifBuilt(insights, (day) => day.duration_p50_ms) },
            { name: 'p95', values: ifBuilt(insights, (day) => day.duration_p95_ms) },
          ]}
          format={millis}
          scale={niceDuration}
        />
        <NumbersTable
          label="build duration per day"
          columns={['Day', 'Builds', 'p50', 'p95']}
          rows={rows.map(({ key, day, built }) => ({
            key,
            cells: [
              <Day date={day.date} />,
              day.builds,
              built ? millis(day.duration_p50_ms) : '–',
              built ? millis(day.duration_p95_ms) : '–',
            ],
          }))}
        />
      </section>
      <section aria-label="success rate">
        <h2>Success rate</h2>
        <LineChart
          label={`Share of builds that succeeded per day, ${range}`}
          dates={dates}
          series={[{ name: 'success rate', values: ifBuilt(insights, (day) => day.success_rate) }]}
          format={percent}
          top={1}
        />
        <NumbersTable
          label="success rate per day"
          columns={['Day', 'Builds', 'Succeeded', 'Success rate']}
          rows={rows.map(({ key, day, built }) => ({
            key,
            cells: [
              <Day date={day.date} />,
              day.builds,
              day.successes,
              built ? percent(day.success_rate) : '–',
            ],
          }))}
        />
      </section>
      <section aria-label="time in the queue">
        <h2>Time in the queue</h2>
        <LineChart
          label={`Time from a build’s creation to its start per day, p50 and p95, ${range}`}
          dates={dates}
          series={[
            { name: 'p50', values: ifBuilt(insights, (day) => day.queue_p50_ms) },
            { name: 'p95', values: ifBuilt(insights, (day) => day.queue_p95_ms) },
          ]}
          format={millis}
          scale={niceDuration}
        />
        <NumbersTable
          label="time in the queue per day"
          columns={['Day', 'Builds', 'p50', 'p95']}
          rows={rows.map(({ key, day, built }) => ({
            key,
            cells: [
              <Day date={day.date} />,
              day.builds,
              built ? millis(day.queue_p50_ms) : '–',
              built ? millis(day.queue_p95_ms) : '–',
            ],
          }))}
        />
      </section>
    </div>
  );
}

/** The slowest steps on average, each with its trend. */
export function StepSection({ insights }: { insights: Insights }) {
  const steps = insights.slowest_steps;
  return (
    <section aria-label="slowest steps">
      <h2>Slowest steps</h2>
      {steps.length === 0 ? (
        <p class="muted">No steps ran in the last {insights.days} days.</p>
      ) : (
        <>
          <BarList label="slowest steps" rows={steps.map((step) => StepRow(step))} />
          <NumbersTable
            label="slowest steps"
            columns={['Step', 'Runs', 'Failures', 'Mean time']}
            rows={steps.map((step) => ({
              key: step.name,
              cells: [step.name, step.runs, step.failures, millis(step.mean_ms)],
            }))}
          />
        </>
      )}
    </section>
  );
}

/** The tests that failed most and those found flaky in the most builds, linked on a repository's page. */
export function TestSections({ insights, slug }: { insights: Insights; slug: string | undefined }) {
  const lists: [string, string, InsightTest[], (test: InsightTest) => number, string][] = [
    ['most failing tests', 'Most failing tests', insights.failing_tests, (t) => t.failures, 'failing'],
    ['flakiest tests', 'Flakiest tests', insights.flaky_tests, (t) => t.flaky, 'flaky'],
  ];
  return (
    <div class="charts">
      {lists.map(([label, heading, tests, count, word]) => (
        <section key={label} aria-label={label}>
          <h2>{heading}</h2>
          {tests.length === 0 ? (
            <p class="muted">
              No {word} tests in the last {insights.days} days.
            </p>
          ) : (
            <>
              <BarList
                label={label}
                rows={tests.map((test) => ({
                  key: test.id,
                  label:
                    slug === undefined ? (
                      <TestName test={test} />
                    ) : (
                      <Link href={testHref(slug, test.id)}>
                        <TestName test={test} />
                      </Link>
                    ),
                  value: count(test),
                  text: word === 'flaky' ? `${test.flaky}× flaky` : `${test.failures}× failed`,
                }))}
              />
              <NumbersTable
                label={label}
                columns={['Test', 'Failures', 'Flaky']}
                rows={tests.map((test) => ({
                  key: test.id,
                  cells: [<TestName test={test} />, test.failures, test.flaky],
                }))}
              />
            </>
          )}
        </section>
      ))}
    </div>
  );
}

/** The caches' hit rate per day and the runners' busy time per day by kind. */
export function UseSections({ insights }: { insights: Insights }) {
  const { caches, runners } = insights;
  const dates = insights.daily.map((day) => day.date);
  const range = `over the last ${insights.days} days`;
  return (
    <div class="charts">
      <section aria-label="cache hit rate">
        <h2>Cache hit rate</h2>
        {caches.hits + caches.misses === 0 ? (
          <p class="muted">No cache was restored in the last {insights.days} days.</p>
        ) : (
          <>
            <LineChart
              label={`Share of cache restores that hit per day, ${range}`}
              dates={dates}
              series={[
                {
                  name: 'hit rate',
                  values: caches.daily.map((d) => (d.hits + d.misses > 0 ? d.hit_rate : undefined)),
                },
              ]}
              format={percent}
              top={1}
            />
            <NumbersTable
              label="cache hit rate per day"
              columns={['Day', 'Hits', 'Misses', 'Hit rate']}
              rows={caches.daily.map((d) => ({
                key: d.date,
                cells: [
                  <Day date={d.date} />,
                  d.hits,
                  d.misses,
                  d.hits + d.misses > 0 ? percent(d.hit_rate) : '–',
                ],
              }))}
            />
          </>
        )}
      </section>
      <section aria-label="runner busy time">
        <h2>Runner busy time</h2>
        {runners.length === 0 ? (
          <p class="muted">No stages ran in the last {insights.days} days.</p>
        ) : (
          <>
            <StackedBars
              label={`Stages’ time on runners per day by kind (${runners.map((r) => r.kind).join(', ')}), ${range}`}
              dates={dates}
              series={runners.map((r) => ({ name: r.kind, values: r.daily.map((d) => d.busy_ms) }))}
              format={millis}
              scale={niceDuration}
            />
            <NumbersTable
              label="runner busy time per day"
              columns={['Day', ...runners.map((r) => r.kind)]}
              rows={dates.map((date, at) => ({
                key: date,
                cells: [<Day date={date} />, ...runners.map((r) => millis(r.daily[at]?.busy_ms ?? 0))],
              }))}
            />
          </>
        )}
      </section>
    </div>
  );
}
