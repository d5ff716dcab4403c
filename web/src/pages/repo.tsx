import { useCallback, useState } from 'preact/hooks';
import { Show, useApi } from '../components/load.js';
import { Ago, duration, Status } from '../components/status.js';
import { Avatar } from '../components/avatar.js';
import { Link } from '../router.js';
import { useBuildEvents } from '../components/stream.js';
import { LocalRefs } from './local-refs.js';
import { NewBuildForm, Tabs, type Tab } from './repo-tabs.js';
import type { Build } from '../wire.js';

const PER_PAGE = 25;

/** `/{owner}/{name}`: the builds, newest first, a page at a time, filtered by branch; the badge's Markdown. */
export function RepoPage({ owner, name }: { owner: string; name: string }) {
  const slug = `${owner}/${name}`;
  const [page, setPage] = useState(1);
  const [branch, setBranch] = useState('');
  const [tab, setTab] = useState<Tab>('builds');
  const query = `page=${page}&per_page=${PER_PAGE}${branch === '' ? '' : `&branch=${encodeURIComponent(branch)}`}`;
  const builds = useApi<Build[]>(
    tab === 'builds' ? `/api/repos/${slug}/builds?${query}` : `/api/repos/${slug}/builds/${tab}`,
  );
  // The built-in git provider's statuses change with the builds: one stream refreshes both.
  const [tick, setTick] = useState(0);
  const { reload } = builds;
  const changed = useCallback(() => {
    reload();
    setTick((n) => n + 1);
  }, [reload]);
  useBuildEvents(slug, changed);
  const badge = `[![Build Status](${location.origin}/api/badges/${slug}/status.svg)](${location.origin}/${slug})`;
  return (
    <main>
      <div class="toolbar">
        <h1>{slug}</h1>
        <Link href={`/${slug}/tests`}>Flaky tests</Link>
        <Link href={`/${slug}/insights`}>Insights</Link>
        <Link href={`/${slug}/settings`}>Settings</Link>
      </div>
      <NewBuildForm slug={slug} />
      <Tabs
        tab={tab}
        select={(next) => {
          setTab(next);
          setPage(1);
        }}
      />
      <div class="filters">
        <label>
          Branch{' '}
          <input
            type="search"
            value={branch}
            placeholder="all branches"
            onChange={(e) => {
              setBranch(e.currentTarget.value.trim());
              setPage(1);
            }}
          />
        </label>
      </div>
      <Show loaded={builds}>
        {(list) => (
          <>
            {list.length === 0 ? (
              <p class="muted">
                {branch === ''
                  ? 'No builds yet. A push, a pull request or a cron job starts one; so does “New build” above.'
                  : `No builds of ${branch}.`}
              </p>
            ) : (
              <BuildTable slug={slug} builds={list} />
            )}
            <nav class="pager" aria-label="pages">
              <button type="button" disabled={page === 1} onClick={() => setPage(page - 1)}>
                Newer
              </button>
              <span>Page {page}</span>
              <button type="button" disabled={list.length < PER_PAGE} onClick={() => setPage(page + 1)}>
                Older
              </button>
            </nav>
          </>
        )}
      </Show>
      <LocalRefs slug={slug} tick={tick} />
      <details>
        <summary>Status badge</summary>
        <code class="block">{badge}</code>
      </details>
    </main>
  );
}

function BuildTable({ slug, builds }: { slug: string; builds: Build[] }) {
  return (
    <table class="builds">
      <thead>
        <tr>
          <th scope="col">#</th>
          <th scope="col">Status</th>
          <th scope="col">Event</th>
          <th scope="col">Branch</th>
          <th scope="col">Message</th>
          <th scope="col">Author</th>
          <th scope="col">Duration</th>
          <th scope="col">Created</th>
        </tr>
      </thead>
      <tbody>
        {builds.map((build) => (
          <tr key={build.number}>
            <td>
              <Link href={`/${slug}/${build.number}`} nav>
                #{build.number}
              </Link>
            </td>
            <td>
              <Status status={build.status} />
            </td>
            <td>{build.event}</td>
            <td>{build.target}</td>
            <td class="message">{build.message.split('\n')[0]}</td>
            <td class="author">
              <Avatar login={build.author_login} url={build.author_avatar} /> {build.author_login}
            </td>
            <td>{duration(build.started, build.finished)}</td>
            <td>
              <Ago seconds={build.created} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
