import { Link, navigate } from '../router.js';
import type { TestHistory } from '../wire.js';
import { Ago, Status } from './status.js';
import { millis } from './units.js';

const BAR = 8;
const GAP = 3;
const HEIGHT = 48;

/** What a result's tooltip and the table say of it. */
function describe(result: TestHistory): string {
  const when = result.created > 0 ? `, ${new Date(result.created * 1000).toLocaleString()}` : '';
  const attempt = result.attempt > 1 ? `, attempt ${result.attempt}` : '';
  return `#${result.build} ${result.status}${result.new ? ' (new)' : ''}${attempt}, ${millis(result.duration_ms)}${when}`;
}

/**
 * A test's last results as a strip of bars, newest right: each bar as tall as the run took (to the
 * longest), coloured by its status, its tooltip saying which build, and a link to it. The table
 * after it says the same in words.
 */
export function TestStrip({ slug, history }: { slug: string; history: readonly TestHistory[] }) {
  if (history.length === 0) return <p class="muted">No results yet.</p>;
  const longest = Math.max(1, ...history.map((result) => result.duration_ms));
  const oldestFirst = [...history].reverse();
  const width = oldestFirst.length * (BAR + GAP);
  const open = (event: MouseEvent, href: string) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(href);
  };
  return (
    <svg
      class="test-strip"
      viewBox={`0 0 ${width} ${HEIGHT}`}
      width={width}
      height={HEIGHT}
      role="group"
      aria-label={`last ${history.length} results, oldest first`}
    >
      <line class="baseline" x1={0} x2={width} y1={HEIGHT - 0.5} y2={HEIGHT - 0.5} />
      {oldestFirst.map((result, at) => {
        const height = Math.max(3, Math.round((result.duration_ms / longest) * (HEIGHT - 2)));
        const href = `/${slug}/${result.build}`;
        return (
          <a key={at} href={href} class="result" onClick={(e) => open(e, href)} aria-label={describe(result)}>
            <title>{describe(result)}</title>
            <rect
              class={`bar bar-${result.status}`}
              x={at * (BAR + GAP)}
              y={HEIGHT - height}
              width={BAR}
              height={height}
              rx={1.5}
            />
          </a>
        );
      })}
    </svg>
  );
}

/** The same results as a table, newest first: build, commit, attempt, status, duration, when. */
export function HistoryTable({ slug, history }: { slug: string; history: readonly TestHistory[] }) {
  if (history.length === 0) return null;
  return (
    <div class="scroll">
      <table class="builds history" aria-label="results">
        <caption class="muted">Last {history.length} results, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Build</th>
            <th scope="col">Status</th>
            <th scope="col">Duration</th>
            <th scope="col">Commit</th>
            <th scope="col">When</th>
          </tr>
        </thead>
        <tbody>
          {history.map((result, at) => (
            <tr key={at}>
              <td>
                <Link href={`/${slug}/${result.build}`}>#{result.build}</Link>
                {result.attempt > 1 ? <span class="muted"> attempt {result.attempt}</span> : null}
              </td>
              <td>
                <Status status={result.status} />
                {result.new ? <span class="muted"> new</span> : null}
                {result.quarantined ? <span class="muted"> quarantined</span> : null}
              </td>
              <td>{millis(result.duration_ms)}</td>
              <td>
                <code>{result.commit.slice(0, 10)}</code>
              </td>
              <td title={result.created > 0 ? new Date(result.created * 1000).toLocaleString() : undefined}>
                <Ago seconds={result.created} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
