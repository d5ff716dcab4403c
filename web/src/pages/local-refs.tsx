import { useEffect } from 'preact/hooks';
import { Show, useApi } from '../components/load.js';
import { ago, Status } from '../components/status.js';

/** A branch or tag as GET /api/local/repos/:owner/:name/refs answers it. */
interface LocalRef {
  ref: string;
  name: string;
  kind: 'branch' | 'tag';
  sha: string;
  subject: string;
  statuses: { context: string; state: string; description: string; target_url: string; updated: number }[];
}

/**
 * With svc's built-in git provider: the repository's branches and tags as the provider holds them,
 * each commit with the statuses svc reported to it (what GitHub shows as a commit's checks).
 * `tick` changes when a build of the repository does, so the statuses follow live.
 */
export function LocalRefs({ slug, tick }: { slug: string; tick: number }) {
  const local = useApi<{ enabled: boolean }>('/api/local');
  if (local.value?.enabled !== true) return null;
  return <RefsTable slug={slug} tick={tick} />;
}

function RefsTable({ slug, tick }: { slug: string; tick: number }) {
  const refs = useApi<LocalRef[]>(`/api/local/repos/${slug}/refs`);
  const { reload } = refs;
  useEffect(() => {
    if (tick > 0) reload();
  }, [tick, reload]);
  return (
    <section aria-label="branches and tags">
      <h2>Branches and tags</h2>
      <Show loaded={refs}>
        {(list) =>
          list.length === 0 ? (
            <p class="muted">Nothing pushed yet.</p>
          ) : (
            <table class="builds">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Commit</th>
                  <th scope="col">Commit status</th>
                </tr>
              </thead>
              <tbody>
                {list.map((entry) => (
                  <tr key={entry.ref}>
                    <td>
                      {entry.name}
                      {entry.kind === 'tag' ? <span class="muted"> (tag)</span> : null}
                    </td>
                    <td class="message">
                      <code>{entry.sha.slice(0, 8)}</code> {entry.subject}
                    </td>
                    <td>
                      {entry.statuses.length === 0 ? <span class="muted">none</span> : null}
                      {entry.statuses.map((status) => (
                        <a
                          key={status.context}
                          href={status.target_url}
                          title={`${status.description} (${ago(status.updated / 1000)})`}
                        >
                          <Status status={status.state} /> {status.context}{' '}
                        </a>
                      ))}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Show>
    </section>
  );
}
