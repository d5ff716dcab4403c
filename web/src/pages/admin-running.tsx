import { useCallback, useEffect, useState } from 'preact/hooks';
import { ErrorNote, Show, useApi } from '../components/load.js';
import { duration, Status } from '../components/status.js';
import { useBuildEvents } from '../components/stream.js';
import { Link } from '../router.js';
import type { Build, Repo, Stage } from '../wire.js';
import { RunnerList, type Runner } from './admin-running-runners.js';

/** One entry of `GET /api/builds/incomplete?stages=true`: a repository with one of its builds. */
export interface RunningEntry extends Repo {
  build: Build & { stages: Stage[] };
}

/**
 * How often the lists are read again besides the build events: runners' last contact and a stage
 * taken by a runner change without an event.
 */
const REFRESH_MS = 5000;

/** Every second, so that the time each build has run or waited counts up while the page is open. */
function useNow(): number {
  const [now, setNow] = useState(() => Date.now() / 1000);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now() / 1000), 1000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

/**
 * `/admin/running` (administrators): every build that is running or waiting, in every repository,
 * with its stages and the runner each runs on; then the runners with what they run. Follows the
 * build events and reads both lists again every few seconds.
 */
export function AdminRunningPage() {
  const builds = useApi<RunningEntry[]>('/api/builds/incomplete?stages=true');
  const runners = useApi<Runner[]>('/api/runners');
  const { reload: reloadBuilds } = builds;
  const { reload: reloadRunners } = runners;
  const refresh = useCallback(() => {
    reloadBuilds();
    reloadRunners();
  }, [reloadBuilds, reloadRunners]);
  // A refusal (not an administrator) is final: nothing is followed or asked again.
  const refused = builds.status !== undefined && builds.status >= 400 && builds.status < 500;
  const now = useNow();
  return (
    <main>
      <h1>Running now</h1>
      <p class="muted">
        Every build running or waiting, in every repository. <Link href="/admin">Administration</Link> has the
        queue (pause, resume) and the runner tokens.
      </p>
      {refused ? (
        <ErrorNote error={builds.error} />
      ) : (
        <>
          <Follow changed={refresh} />
          <section aria-label="running builds">
            <h2>Builds</h2>
            <Show loaded={builds}>{(list) => <BuildList entries={list} now={now} />}</Show>
          </section>
          <section aria-label="runners">
            <h2>Runners</h2>
            <Show loaded={runners}>
              {(list) => <RunnerList runners={list} entries={builds.value ?? []} />}
            </Show>
          </section>
        </>
      )}
    </main>
  );
}

/** Calls `changed` on every build event of any repository, and every few seconds besides. */
function Follow({ changed }: { changed: () => void }) {
  useBuildEvents(undefined, changed);
  useEffect(() => {
    const timer = setInterval(changed, REFRESH_MS);
    return () => clearInterval(timer);
  }, [changed]);
  return null;
}

function BuildList({ entries, now }: { entries: readonly RunningEntry[]; now: number }) {
  if (entries.length === 0)
    return (
      <div class="running-empty">
        <p>
          <strong>Nothing is running.</strong>
        </p>
        <p class="muted">
          A build shows up here as soon as a push, a pull request, a cron job or “New build” on a repository’s
          page starts one. Builds that stay pending say why on their page and in the queue on{' '}
          <Link href="/admin">Administration</Link>.
        </p>
      </div>
    );
  return (
    <ul class="running-builds">
      {entries.map((entry) => (
        <RunningBuild key={`${entry.slug}#${entry.build.number}`} entry={entry} now={now} />
      ))}
    </ul>
  );
}

function RunningBuild({ entry, now }: { entry: RunningEntry; now: number }) {
  const { build } = entry;
  const name = `${entry.slug} #${build.number}`;
  return (
    <li class="running-build" aria-label={`build ${name}`}>
      <div class="running-head">
        <Link href={`/${entry.slug}/${build.number}`} class="title" nav>
          {name}
        </Link>{' '}
        <Status status={build.status} /> <span class="running-for">{since(build, now)}</span>
      </div>
      <div class="muted running-meta">
        <span>{branchOf(build)}</span> · <span>{build.author_login || build.sender}</span>
        {build.message ? <span> · {build.message.split('\n')[0]}</span> : null}
      </div>
      <ul class="running-stages" aria-label={`stages of ${name}`}>
        {build.stages.map((stage) => (
          <li key={stage.number}>
            <span class="stage-name">{stage.name}</span> <Status status={stage.status} />{' '}
            {stage.machine ? (
              <span>
                on <strong class="machine">{stage.machine}</strong>
              </span>
            ) : null}{' '}
            {stage.status === 'running' ? <span class="muted">{duration(stage.started, 0, now)}</span> : null}
            {stage.pending_reason ? <span class="muted"> — {stage.pending_reason.message}</span> : null}
          </li>
        ))}
      </ul>
    </li>
  );
}

/**
 * `for 1m 05s` after the build's status: since it started, or since it was made while nothing of
 * it started (how long it has waited).
 */
function since(build: Build, now: number): string {
  return `for ${duration(build.started || build.created, 0, now)}`;
}

/** The branch built: a pull request's source into its target, otherwise the target (`main`). */
function branchOf(build: Build): string {
  if (build.event === 'pull_request' && build.source) return `${build.source} → ${build.target}`;
  return build.target || build.ref;
}
