import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { ActionButton } from '../components/action.js';
import { ApiForm } from '../components/form.js';
import { Show, useApi } from '../components/load.js';

interface Environment {
  name: string;
  approvers: { users: string[]; teams: string[] };
  required_approvals: number;
  branches: string[];
  timeout: number;
}

/** A comma-separated field as a list. */
const listOf = (text: string) =>
  text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');

const approversText = (e: Environment) =>
  [...e.approvers.users, ...e.approvers.teams.map((t) => `team ${t}`)].join(', ') ||
  'anyone with write access';

/**
 * The repository's deployment environments: who approves a deployment, how many must, which branches
 * may deploy, how long a deployment waits. Everyone who reads the repository sees them; admins change them.
 */
export function EnvironmentSection({ slug, admin }: { slug: string; admin: boolean }) {
  const path = `/api/repos/${slug}/environments`;
  const environments = useApi<Environment[]>(path);
  return (
    <section aria-label="environments">
      <h2>Environments</h2>
      <Show loaded={environments}>
        {(list) =>
          list.length === 0 ? (
            <p class="muted">
              No environments. A pipeline with <code>environment: production</code>, or a promotion to{' '}
              <code>production</code>, waits for the approvals an environment of that name asks for: see{' '}
              <a href="/docs/pipelines.md">docs/pipelines.md</a>.
            </p>
          ) : (
            <table class="builds" aria-label="environment list">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Approvals</th>
                  <th scope="col">Approvers</th>
                  <th scope="col">Branches</th>
                  <th scope="col">Timeout</th>
                  {admin ? <th scope="col">Actions</th> : null}
                </tr>
              </thead>
              <tbody>
                {list.map((e) => (
                  <tr key={e.name}>
                    <th scope="row">
                      <code>{e.name}</code>
                    </th>
                    <td>{e.required_approvals}</td>
                    <td>{approversText(e)}</td>
                    <td>{e.branches.join(', ') || 'any'}</td>
                    <td>{e.timeout} min</td>
                    {admin ? (
                      <td>
                        <ActionButton
                          label="Delete"
                          name={`Delete ${e.name}`}
                          kind="danger"
                          run={() => api('DELETE', `${path}/${encodeURIComponent(e.name)}`)}
                          done={environments.reload}
                        />
                      </td>
                    ) : null}
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Show>
      {admin ? <AddEnvironment path={path} added={environments.reload} /> : null}
    </section>
  );
}

function AddEnvironment({ path, added }: { path: string; added: () => void }) {
  const [name, setName] = useState('');
  const [users, setUsers] = useState('');
  const [teams, setTeams] = useState('');
  const [approvals, setApprovals] = useState('1');
  const [branches, setBranches] = useState('');
  const [timeout, setTimeoutMinutes] = useState('1440');
  return (
    <ApiForm
      name="add an environment"
      label="Add environment"
      submit={() =>
        api('POST', path, {
          name,
          approvers: { users: listOf(users), teams: listOf(teams) },
          required_approvals: Number(approvals),
          branches: listOf(branches),
          timeout: Number(timeout),
        })
      }
      done={() => {
        setName('');
        added();
      }}
    >
      <label>
        Name <input value={name} onInput={(e) => setName(e.currentTarget.value)} placeholder="production" />
      </label>
      <label>
        Approvers{' '}
        <input
          value={users}
          onInput={(e) => setUsers(e.currentTarget.value)}
          placeholder="logins, comma-separated"
        />
      </label>
      <label>
        Teams{' '}
        <input value={teams} onInput={(e) => setTeams(e.currentTarget.value)} placeholder="org/team, …" />
      </label>
      <label>
        Approvals needed{' '}
        <input
          type="number"
          min={0}
          max={5}
          value={approvals}
          onInput={(e) => setApprovals(e.currentTarget.value)}
        />
      </label>
      <label>
        Branches{' '}
        <input
          value={branches}
          onInput={(e) => setBranches(e.currentTarget.value)}
          placeholder="main, release/* (empty: any)"
        />
      </label>
      <label>
        Timeout (minutes){' '}
        <input
          type="number"
          min={1}
          value={timeout}
          onInput={(e) => setTimeoutMinutes(e.currentTarget.value)}
        />
      </label>
    </ApiForm>
  );
}
