import { useEffect, useMemo, useState } from 'preact/hooks';
import { ErrorNote, useApi } from '../components/load.js';
import { useLogLines } from '../components/log-lines.js';
import { useFolding } from '../components/log-folding.js';
import { LogView } from '../components/log-view.js';
import { duration, Status } from '../components/status.js';
import { statusTitle, useStatusIcon, useTitle } from '../components/document-status.js';
import { Link } from '../router.js';
import { DONE, type Build } from '../wire.js';

interface Props {
  owner: string;
  name: string;
  number: number;
  stage: number;
  step: number;
}

/**
 * `/{owner}/{name}/{number}/{stage}/{step}`: a step's log. A running step's lines arrive live over
 * its event stream (which first sends what was stored); a finished step's log is read in one request.
 * `?find=text` searches the log for `text` at once, scrolling to its first line.
 */
export function LogPage(props: Props) {
  const slug = `${props.owner}/${props.name}`;
  const buildPath = `/api/repos/${slug}/builds/${props.number}`;
  const logPath = `${buildPath}/logs/${props.stage}/${props.step}`;
  const build = useApi<Build>(buildPath);
  const stage = build.value?.stages?.find((s) => s.number === props.stage);
  const step = stage?.steps?.find((s) => s.number === props.step);
  useTitle(statusTitle(step?.status, `${step?.name ?? `step ${props.step}`} · ${slug} #${props.number}`));
  useStatusIcon(build.value?.status);
  const { lines, error, live } = useLogLines(
    logPath,
    step === undefined ? undefined : !DONE.has(step.status),
  );
  const [follow, setFollow] = useState(true);
  // `?find=TestName` (a failed test's link): the search starts with it, showing its first line.
  const [query, setQuery] = useState(() => new URLSearchParams(location.search).get('find') ?? '');
  const [hit, setHit] = useState(0);
  const hits = useMemo(() => (query === '' ? [] : matches(lines, query)), [lines, query]);
  const linked = Number(/^#L(\d+)$/.exec(useHash())?.[1] ?? 0) - 1;
  const jump = hits.length > 0 ? hits[hit % hits.length] : linked >= 0 ? linked : undefined;
  const folding = useFolding(lines);
  const { reveal } = folding;
  // A search hit or a linked line inside a folded section opens it.
  useEffect(() => {
    if (jump !== undefined && jump < lines.length) reveal(jump);
  }, [jump, lines.length, reveal]);
  useEffect(() => {
    if (!live) build.reload();
  }, [live, build.reload]);
  return (
    <main class="wide">
      <h1>
        <Link href={`/${slug}/${props.number}`}>
          {slug} #{props.number}
        </Link>{' '}
        {stage?.name ?? ''} › {step?.name ?? ''} {step ? <Status status={step.status} /> : null}{' '}
        <span class="muted">{step ? duration(step.started, step.stopped) : ''}</span>
      </h1>
      <ErrorNote error={build.error ?? error} />
      <div class="toolbar">
        <label>
          <input type="checkbox" checked={follow} onChange={(e) => setFollow(e.currentTarget.checked)} />{' '}
          Follow
        </label>
        <label>
          Search{' '}
          <input
            type="search"
            data-shortcut="search"
            value={query}
            onInput={(e) => {
              setQuery(e.currentTarget.value);
              setHit(0);
              setFollow(false);
            }}
          />
        </label>
        {query === '' ? null : (
          <>
            <span aria-live="polite">
              {hits.length === 0 ? 'no match' : `${(hit % hits.length) + 1} of ${hits.length}`}
            </span>
            <button type="button" disabled={hits.length === 0} onClick={() => setHit(hit + hits.length - 1)}>
              Previous
            </button>
            <button type="button" disabled={hits.length === 0} onClick={() => setHit(hit + 1)}>
              Next
            </button>
          </>
        )}
        {folding.sections.length === 0 ? null : (
          <>
            <button type="button" onClick={() => folding.setAll(false)}>
              Open all sections
            </button>
            <button type="button" onClick={() => folding.setAll(true)}>
              Fold all sections
            </button>
          </>
        )}
        <Download
          lines={lines}
          file={`${props.owner}-${props.name}-${props.number}-${props.stage}-${props.step}.log`}
        />
        <span class="muted">
          {lines.length.toLocaleString()} lines{live ? ' · live' : ''}
        </span>
      </div>
      <LogView lines={lines} follow={follow && query === '' && linked < 0} jump={jump} folding={folding} />
    </main>
  );
}

/** The URL's `#…`, following changes (a line's link, a link to another line). */
function useHash(): string {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const update = () => setHash(location.hash);
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return hash;
}

function matches(lines: readonly string[], query: string): number[] {
  const needle = query.toLowerCase();
  const found: number[] = [];
  lines.forEach((line, index) => {
    if (line.toLowerCase().includes(needle)) found.push(index);
  });
  return found;
}

function Download({ lines, file }: { lines: readonly string[]; file: string }) {
  const save = () => {
    const url = URL.createObjectURL(new Blob([lines.join('\n') + '\n'], { type: 'text/plain' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = file;
    link.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };
  return (
    <button type="button" onClick={save}>
      Download
    </button>
  );
}
