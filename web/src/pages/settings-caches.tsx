import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { ActionButton } from '../components/action.js';
import { Show, useApi } from '../components/load.js';
import { Ago } from '../components/status.js';
import { bytes } from '../components/units.js';

interface Cache {
  key: string;
  scope: string;
  size: number;
  created: number;
  used: number;
}

/** The entries grouped by key, keys in the order of their newest entry (the list is newest first). */
function byKey(caches: readonly Cache[]): [string, Cache[]][] {
  const groups = new Map<string, Cache[]>();
  for (const cache of caches) {
    const group = groups.get(cache.key);
    if (group === undefined) groups.set(cache.key, [cache]);
    else group.push(cache);
  }
  return [...groups];
}

/**
 * The repository's build caches (docs/caches.md): listed for writers; its admins remove a key (in
 * every scope) or, after a confirmation, all of them — as the API allows.
 */
export function CacheSection({ slug, admin }: { slug: string; admin: boolean }) {
  const path = `/api/repos/${slug}/caches`;
  const caches = useApi<Cache[]>(path);
  return (
    <section aria-label="caches">
      <h2>Caches</h2>
      <Show loaded={caches}>
        {(list) =>
          list.length === 0 ? (
            <p class="muted">
              No caches. A step’s <code>cache:</code> keeps files — downloaded dependencies, build outputs —
              from one build for the next, per branch and pull request: see{' '}
              <a href="/docs/caches.md">docs/caches.md</a>.
            </p>
          ) : (
            <>
              <CacheTable caches={list} path={path} admin={admin} removed={caches.reload} />
              {admin ? (
                <RemoveAll path={path} count={list.length} removed={caches.reload} />
              ) : (
                <p class="muted">Only the repository’s admins can remove caches.</p>
              )}
            </>
          )
        }
      </Show>
    </section>
  );
}

function CacheTable(props: { caches: readonly Cache[]; path: string; admin: boolean; removed: () => void }) {
  return (
    <table class="builds caches" aria-label="cache list">
      <thead>
        <tr>
          <th scope="col">Key</th>
          <th scope="col">Scope</th>
          <th scope="col">Size</th>
          <th scope="col">Last used</th>
          {props.admin ? <th scope="col">Actions</th> : null}
        </tr>
      </thead>
      {byKey(props.caches).map(([key, entries]) => (
        <tbody key={key}>
          {entries.map((cache, index) => (
            <tr key={cache.scope}>
              {index === 0 ? (
                <th scope="rowgroup" rowSpan={entries.length}>
                  <code>{key}</code>
                </th>
              ) : null}
              <td>{cache.scope}</td>
              <td>{bytes(cache.size)}</td>
              <td>
                <Ago seconds={cache.used} />
              </td>
              {props.admin && index === 0 ? (
                <td rowSpan={entries.length}>
                  <ActionButton
                    label="Remove"
                    name={`Remove ${key}`}
                    kind="danger"
                    run={() => api('DELETE', `${props.path}/${encodeURIComponent(key)}`)}
                    done={props.removed}
                  />
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      ))}
    </table>
  );
}

/** "Remove all", then a question: wiping every cache makes the next builds start cold. */
function RemoveAll(props: { path: string; count: number; removed: () => void }) {
  const [asking, setAsking] = useState(false);
  if (!asking)
    return (
      <div class="toolbar">
        <button type="button" class="danger" onClick={() => setAsking(true)}>
          Remove all
        </button>
      </div>
    );
  return (
    <div class="toolbar" role="group" aria-label="confirm removing all caches">
      <span>
        {props.count === 1 ? 'Remove the only cache?' : `Remove all ${props.count} caches?`} The next builds
        start without them.
      </span>
      <ActionButton
        label="Yes, remove all"
        kind="danger"
        run={() => api('DELETE', props.path)}
        done={() => {
          setAsking(false);
          props.removed();
        }}
      />
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </div>
  );
}
