import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { ActionButton } from '../components/action.js';
import { Show, useApi } from '../components/load.js';
import { BuildSparkline } from '../components/build-sparkline.js';
import { Ago, Status } from '../components/status.js';
import { Link } from '../router.js';
import type { Repo } from '../wire.js';
import { LocalRepoPanel } from './local-repo.js';

/** How many of each repository's last builds the sparkline shows. */
const RECENT = 20;

/**
 * `/`: the caller's repositories with their newest build and a sparkline of their last builds'
 * durations; search, only-enabled filter, sync, enable.
 */
export function ReposPage() {
  const repos = useApi<Repo[]>(`/api/user/repos?latest=true&recent=${RECENT}`);
  const [query, setQuery] = useState('');
  const [activeOnly, setActiveOnly] = useState(true);
  return (
    <main>
      <div class="toolbar">
        <h1>Repositories</h1>
        <ActionButton label="Sync" run={() => api('POST', '/api/user/repos')} done={repos.reload} />
      </div>
      <div class="filters">
        <label>
          Search{' '}
          <input
            type="search"
            data-shortcut="search"
            value={query}
            onInput={(e) => setQuery(e.currentTarget.value)}
          />
        </label>
        <label>
          <input
            type="checkbox"
            checked={activeOnly}
            onChange={(e) => setActiveOnly(e.currentTarget.checked)}
          />{' '}
          Enabled only
        </label>
      </div>
      <LocalRepoPanel changed={repos.reload} />
      <Show loaded={repos}>
        {(list) => {
          const shown = list.filter(
            (repo) => (!activeOnly || repo.active) && repo.slug.toLowerCase().includes(query.toLowerCase()),
          );
          if (shown.length === 0)
            return (
              <p class="muted">
                {query !== ''
                  ? 'No repository matches.'
                  : activeOnly
                    ? 'No enabled repository yet. Untick “Enabled only” to see all of yours, and enable one to build it; “Sync” reads them from the git provider again.'
                    : 'No repository yet. “Sync” reads yours from the git provider.'}
              </p>
            );
          return (
            <ul class="cards" aria-label="repositories">
              {shown.map((repo) => (
                <RepoCard key={repo.slug} repo={repo} enabled={repos.reload} />
              ))}
            </ul>
          );
        }}
      </Show>
    </main>
  );
}

function RepoCard({ repo, enabled }: { repo: Repo; enabled: () => void }) {
  const build = repo.build;
  return (
    <li class="card">
      <Link href={`/${repo.slug}`} class="title" nav>
        {repo.slug}
      </Link>
      {build === undefined ? (
        <span class="muted">{repo.active ? 'no builds yet' : 'not enabled'}</span>
      ) : (
        <span>
          <Status status={build.status} /> #{build.number} · {build.target} · <Ago seconds={build.created} />
        </span>
      )}
      {repo.recent === undefined ? null : <BuildSparkline recent={repo.recent} slots={RECENT} />}
      {!repo.active && repo.permissions?.admin ? (
        <ActionButton label="Enable" run={() => api('POST', `/api/repos/${repo.slug}`)} done={enabled} />
      ) : null}
    </li>
  );
}
