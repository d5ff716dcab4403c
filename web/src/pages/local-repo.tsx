import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { ActionButton } from '../components/action.js';
import { ApiForm } from '../components/form.js';
import { useApi } from '../components/load.js';
import { Status } from '../components/status.js';
import { useBuildEvents } from '../components/stream.js';
import { Link } from '../router.js';
import type { Build } from '../wire.js';

/** A repository the built-in git provider made, as POST /api/local/repos answers it. */
interface LocalRepo {
  namespace: string;
  name: string;
  clone_url: string;
}

/**
 * With svc's built-in git provider (docs/local-git.md): make a repository — enabled at once — then
 * either push to it (the two commands) or let svc commit a sample pipeline, which builds.
 */
export function LocalRepoPanel({ changed }: { changed: () => void }) {
  const local = useApi<{ enabled: boolean }>('/api/local');
  const [name, setName] = useState('');
  const [made, setMade] = useState<LocalRepo>();
  if (local.value?.enabled !== true) return null;
  return (
    <section class="panel" aria-label="create a repository">
      <h2>Create a repository</h2>
      <ApiForm
        label="Create"
        name="new repository"
        submit={async () => {
          const repo = await api<LocalRepo>('POST', '/api/local/repos', { name });
          await api('POST', `/api/repos/${repo.namespace}/${repo.name}`);
          setMade(repo);
        }}
        done={changed}
      >
        <label>
          Name <input required value={name} onInput={(event) => setName(event.currentTarget.value)} />
        </label>
      </ApiForm>
      {made === undefined ? null : (
        <div aria-label="push to it">
          <p>
            <strong>
              {made.namespace}/{made.name}
            </strong>{' '}
            is ready. Push a repository with a <code>.drone.yml</code> to it (git asks for your name, and your
            password or an API token):
          </p>
          <pre class="block">{`git remote add svc ${made.clone_url}\ngit push svc main`}</pre>
          <p>
            No repository at hand?{' '}
            <ActionButton
              label="Add a sample pipeline"
              run={() => api('POST', `/api/local/repos/${made.namespace}/${made.name}/sample`, {})}
              done={changed}
            />
          </p>
          <FirstBuild slug={`${made.namespace}/${made.name}`} />
        </div>
      )}
    </section>
  );
}

/** The repository's newest build as soon as a push makes one, with the way to its live log. */
function FirstBuild({ slug }: { slug: string }) {
  const builds = useApi<Build[]>(`/api/repos/${slug}/builds?page=1&per_page=1`);
  useBuildEvents(slug, builds.reload);
  const newest = builds.value?.[0];
  if (newest === undefined)
    return (
      <p class="muted" aria-live="polite">
        Waiting for the first push…
      </p>
    );
  return (
    <p aria-live="polite">
      <Link href={`/${slug}/${newest.number}`}>Build #{newest.number}</Link> <Status status={newest.status} />{' '}
      {newest.message.split('\n')[0]} — open it to follow its log live.
    </p>
  );
}
