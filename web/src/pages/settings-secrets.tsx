import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { ActionButton } from '../components/action.js';
import { ApiForm } from '../components/form.js';
import { Show, useApi } from '../components/load.js';

interface Secret {
  name: string;
  pull_request: boolean;
  pull_request_push: boolean;
  environment?: string;
}

/** The repository's secrets: names and flags only (values go in, never come out). */
export function SecretSection({ slug }: { slug: string }) {
  const path = `/api/repos/${slug}/secrets`;
  const secrets = useApi<Secret[]>(path);
  const [name, setName] = useState('');
  const [data, setData] = useState('');
  const [pulls, setPulls] = useState(false);
  const [environment, setEnvironment] = useState('');
  return (
    <section aria-label="secrets">
      <h2>Secrets</h2>
      <Show loaded={secrets}>
        {(list) =>
          list.length === 0 ? (
            <p class="muted">
              No secrets. Add one below; steps read it with <code>from_secret</code>.
            </p>
          ) : (
            <ul aria-label="secret list">
              {list.map((secret) => (
                <li key={secret.name}>
                  <code>{secret.name}</code> {secret.pull_request ? '(pull requests too)' : ''}{' '}
                  {secret.environment ? `(only deployments to ${secret.environment})` : ''}{' '}
                  <ActionButton
                    label={`Delete ${secret.name}`}
                    kind="danger"
                    run={() => api('DELETE', `${path}/${encodeURIComponent(secret.name)}`)}
                    done={secrets.reload}
                  />
                </li>
              ))}
            </ul>
          )
        }
      </Show>
      <ApiForm
        name="add a secret"
        label="Add secret"
        submit={() => api('POST', path, { name, data, pull_request: pulls, environment })}
        done={() => {
          setName('');
          setData('');
          setEnvironment('');
          secrets.reload();
        }}
      >
        <label>
          Name <input value={name} onInput={(e) => setName(e.currentTarget.value)} autocomplete="off" />
        </label>
        <label>
          Value{' '}
          <input
            type="password"
            value={data}
            onInput={(e) => setData(e.currentTarget.value)}
            autocomplete="off"
          />
        </label>
        <label>
          Environment{' '}
          <input
            value={environment}
            onInput={(e) => setEnvironment(e.currentTarget.value)}
            placeholder="only deployments to it (optional)"
            autocomplete="off"
          />
        </label>
        <label>
          <input type="checkbox" checked={pulls} onChange={(e) => setPulls(e.currentTarget.checked)} /> Give
          it to pull requests
        </label>
      </ApiForm>
    </section>
  );
}
