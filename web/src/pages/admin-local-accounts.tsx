import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { ApiForm } from '../components/form.js';
import { useApi } from '../components/load.js';

/**
 * With svc's built-in git provider (docs/local-git.md): a new account with its password, which
 * logs in at /login and pushes with git. Nothing shows on a server without the provider.
 */
export function LocalAccounts() {
  const local = useApi<{ enabled: boolean }>('/api/local');
  const [login, setLogin] = useState('');
  const [password, setPassword] = useState('');
  const [admin, setAdmin] = useState(false);
  const [made, setMade] = useState<string>();
  if (local.value?.enabled !== true) return null;
  return (
    <section aria-label="git accounts">
      <h2>Accounts of the built-in git provider</h2>
      <p class="muted">
        Each person logs in at <code>/login</code> with the name and password given here, and pushes with git
        (the password, or an API token from their account page).
      </p>
      <ApiForm
        name="add an account"
        label="Add account"
        submit={async () => {
          await api('POST', '/api/local/accounts', { login, password, admin });
          setMade(login);
          setPassword('');
        }}
      >
        <label>
          Name <input value={login} onInput={(e) => setLogin(e.currentTarget.value)} />
        </label>
        <label>
          Password{' '}
          <input
            type="password"
            autocomplete="new-password"
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </label>
        <label>
          <input type="checkbox" checked={admin} onChange={(e) => setAdmin(e.currentTarget.checked)} />{' '}
          Administrator
        </label>
      </ApiForm>
      {made === undefined ? null : <p role="status">{made} can log in now.</p>}
    </section>
  );
}
