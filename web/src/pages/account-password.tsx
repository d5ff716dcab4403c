import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { ApiForm } from '../components/form.js';
import { useApi } from '../components/load.js';

/** With svc's built-in git provider: a new password (given the current one) for logins and git. */
export function LocalPassword() {
  const local = useApi<{ enabled: boolean }>('/api/local');
  const [current, setCurrent] = useState('');
  const [password, setPassword] = useState('');
  if (local.value?.enabled !== true) return null;
  return (
    <section aria-label="password">
      <h2>Password</h2>
      <ApiForm
        name="change the password"
        label="Change password"
        submit={async () => {
          await api('POST', '/api/local/password', { current, password });
          setCurrent('');
          setPassword('');
        }}
      >
        <label>
          Current password{' '}
          <input
            type="password"
            autocomplete="current-password"
            value={current}
            onInput={(e) => setCurrent(e.currentTarget.value)}
          />
        </label>
        <label>
          New password{' '}
          <input
            type="password"
            autocomplete="new-password"
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </label>
      </ApiForm>
    </section>
  );
}
