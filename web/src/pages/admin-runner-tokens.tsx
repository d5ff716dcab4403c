import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { ActionButton } from '../components/action.js';
import { ApiForm } from '../components/form.js';
import { Show, useApi } from '../components/load.js';
import { Ago } from '../components/status.js';

interface RunnerToken {
  name: string;
  labels: Record<string, string>;
  created: number;
  last_used: number;
  revoked: number;
  token?: string;
}

/** `k=v,k=v` (or Drone's `k:v`) as a label map; empty entries are skipped. */
function labelsOf(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const pair of text.split(',').map((p) => p.trim())) {
    const at = pair.search(/[=:]/);
    if (at > 0) labels[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return labels;
}

/**
 * Runners' own tokens (administrators): made here or with `svc runner token create`, shown once,
 * revoked at once. A runner presents its token in its SVC_RPC_SECRET, under its token's name.
 */
export function RunnerTokens() {
  const tokens = useApi<RunnerToken[]>('/api/runners/tokens');
  const [name, setName] = useState('');
  const [labels, setLabels] = useState('');
  const [made, setMade] = useState<RunnerToken>();
  return (
    <section aria-label="runner tokens">
      <h2>Runner tokens</h2>
      <Show loaded={tokens}>
        {(list) =>
          list.length === 0 ? (
            <p class="muted">No runner tokens: runners use the shared SVC_RPC_SECRET.</p>
          ) : (
            <ul>
              {list.map((token) => (
                <li key={token.name}>
                  <strong>{token.name}</strong>{' '}
                  <span class="muted">
                    {Object.entries(token.labels)
                      .map(([k, v]) => `${k}=${v}`)
                      .join(', ')}
                  </span>{' '}
                  ·{' '}
                  {token.last_used === 0 ? (
                    'never used'
                  ) : (
                    <>
                      used <Ago seconds={token.last_used} />
                    </>
                  )}{' '}
                  {token.revoked !== 0 ? (
                    <span class="muted">
                      · revoked <Ago seconds={token.revoked} />
                    </span>
                  ) : (
                    <ActionButton
                      label="Revoke"
                      kind="danger"
                      run={() => api('DELETE', `/api/runners/tokens/${encodeURIComponent(token.name)}`)}
                      done={tokens.reload}
                    />
                  )}
                </li>
              ))}
            </ul>
          )
        }
      </Show>
      <ApiForm
        name="add a runner token"
        label="Make token"
        submit={async () =>
          setMade(await api<RunnerToken>('POST', '/api/runners/tokens', { name, labels: labelsOf(labels) }))
        }
        done={tokens.reload}
      >
        <label>
          Runner name <input value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          Labels{' '}
          <input value={labels} placeholder="pool=ci" onInput={(e) => setLabels(e.currentTarget.value)} />
        </label>
      </ApiForm>
      {made?.token === undefined ? null : (
        <p role="status">
          The token of runner {made.name} (shown once; put it in that runner’s SVC_RPC_SECRET):{' '}
          <code class="token">{made.token}</code>
        </p>
      )}
    </section>
  );
}
