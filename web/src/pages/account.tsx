import { useState } from 'preact/hooks';
import { api, useCsrf, type Account } from '../api.js';
import { ActionButton } from '../components/action.js';

/** `/account`: the API token (reveal, copy, rotate) and how to use it with the `svc` client. */
export function AccountPage({ account }: { account: Account }) {
  const [token, setToken] = useState(account.token ?? '');
  const [shown, setShown] = useState(false);
  const [copied, setCopied] = useState(false);
  return (
    <main>
      <h1>{account.login}</h1>
      <h2>API token</h2>
      <p>
        <code class="token">{shown ? token : '•'.repeat(Math.min(32, token.length))}</code>{' '}
        <button type="button" onClick={() => setShown(!shown)}>
          {shown ? 'Hide' : 'Reveal'}
        </button>{' '}
        <button
          type="button"
          onClick={() => void navigator.clipboard.writeText(token).then(() => setCopied(true))}
        >
          {copied ? 'Copied' : 'Copy'}
        </button>{' '}
        <ActionButton
          label="Rotate"
          kind="danger"
          run={() => api<{ token: string }>('POST', '/api/user/token?rotate=true')}
          done={(answer) => {
            setToken(answer.token);
            // Rotating ends every session: svc sent this one a fresh cookie, with a fresh CSRF token.
            void api<Account>('GET', '/api/user').then((user) => useCsrf(user.csrf));
          }}
        />
      </p>
      <p>Use it with the svc command-line client:</p>
      <pre class="block">{`export SVC_SERVER=${location.origin}\nexport SVC_TOKEN=<your token>\nsvc repo ls`}</pre>
    </main>
  );
}
