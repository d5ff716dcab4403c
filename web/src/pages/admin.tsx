import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { ActionButton } from '../components/action.js';
import { ApiForm } from '../components/form.js';
import { Show, useApi } from '../components/load.js';
import { Ago, Status } from '../components/status.js';
import { Link } from '../router.js';
import type { Stage } from '../wire.js';
import { RunnerTokens } from './admin-runner-tokens.js';
import { LocalAccounts } from './admin-local-accounts.js';

interface User {
  login: string;
  email: string;
  admin: boolean;
  machine: boolean;
  active: boolean;
  token?: string;
}

interface Runner {
  name: string;
  kind: string;
  labels: Record<string, string>;
  os: string;
  arch: string;
  capacity: number;
  last_contact: number;
  stages_running: number;
}

interface QueueItem extends Stage {
  id: number;
  repo_id: number;
  build_id: number;
}

/**
 * `/admin`: accounts, the queue with why each stage waits, the runners and their tokens
 * (administrators); every build running now, with its runners, is on `/admin/running`.
 */
export function AdminPage() {
  return (
    <main>
      <h1>Administration</h1>
      <p>
        <Link href="/admin/running">Running now</Link>: every build running or waiting, with the runner each
        stage runs on.
      </p>
      <Users />
      <LocalAccounts />
      <Queue />
      <Runners />
      <RunnerTokens />
    </main>
  );
}

function Users() {
  const users = useApi<User[]>('/api/users');
  const [login, setLogin] = useState('');
  const [machine, setMachine] = useState(false);
  const [token, setToken] = useState<string>();
  return (
    <section aria-label="users">
      <h2>Users</h2>
      <Show loaded={users}>
        {(list) => (
          <table class="builds">
            <thead>
              <tr>
                <th scope="col">Login</th>
                <th scope="col">Kind</th>
                <th scope="col">Admin</th>
                <th scope="col">Active</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.map((user) => {
                const path = `/api/users/${encodeURIComponent(user.login)}`;
                return (
                  <tr key={user.login}>
                    <td>{user.login}</td>
                    <td>{user.machine ? 'machine' : 'person'}</td>
                    <td>{user.admin ? 'yes' : 'no'}</td>
                    <td>{user.active ? 'yes' : 'no'}</td>
                    <td>
                      <ActionButton
                        label={user.admin ? 'Revoke admin' : 'Make admin'}
                        run={() => api('PATCH', path, { admin: !user.admin })}
                        done={users.reload}
                      />
                      <ActionButton
                        label={user.active ? 'Deactivate' : 'Activate'}
                        run={() => api('PATCH', path, { active: !user.active })}
                        done={users.reload}
                      />
                      <ActionButton
                        label="Delete"
                        kind="danger"
                        run={() => api('DELETE', path)}
                        done={users.reload}
                      />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
      </Show>
      <ApiForm
        name="add a user"
        label="Add user"
        submit={async () => setToken((await api<User>('POST', '/api/users', { login, machine })).token)}
        done={users.reload}
      >
        <label>
          Login <input value={login} onInput={(e) => setLogin(e.currentTarget.value)} />
        </label>
        <label>
          <input type="checkbox" checked={machine} onChange={(e) => setMachine(e.currentTarget.checked)} />{' '}
          Machine account
        </label>
      </ApiForm>
      {token === undefined ? null : (
        <p role="status">
          The machine account’s token (shown once): <code>{token}</code>
        </p>
      )}
    </section>
  );
}

function Queue() {
  const queue = useApi<QueueItem[]>('/api/queue');
  return (
    <section aria-label="queue">
      <h2>Queue</h2>
      <div class="toolbar">
        <ActionButton label="Pause" run={() => api('DELETE', '/api/queue')} done={queue.reload} />
        <ActionButton label="Resume" run={() => api('POST', '/api/queue')} done={queue.reload} />
      </div>
      <Show loaded={queue}>
        {(items) =>
          items.length === 0 ? (
            <p class="muted">No stage is pending or running.</p>
          ) : (
            <ul>
              {items.map((item) => (
                <li key={item.id}>
                  {item.name} <Status status={item.status} /> <span class="muted">build {item.build_id}</span>
                  {item.pending_reason ? <span> — {item.pending_reason.message}</span> : null}
                </li>
              ))}
            </ul>
          )
        }
      </Show>
    </section>
  );
}

function Runners() {
  const runners = useApi<Runner[]>('/api/runners');
  return (
    <section aria-label="runners">
      <h2>Runners</h2>
      <Show loaded={runners}>
        {(list) =>
          list.length === 0 ? (
            <p class="muted">No runner has polled.</p>
          ) : (
            <ul>
              {list.map((runner) => (
                <li key={runner.name}>
                  <strong>{runner.name}</strong> {runner.kind} {runner.os}/{runner.arch} ·{' '}
                  {runner.stages_running}/{runner.capacity} running · last contact{' '}
                  <Ago seconds={runner.last_contact} />{' '}
                  <span class="muted">
                    {Object.entries(runner.labels)
                      .map(([k, v]) => `${k}=${v}`)
                      .join(', ')}
                  </span>
                </li>
              ))}
            </ul>
          )
        }
      </Show>
    </section>
  );
}
