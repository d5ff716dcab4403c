import { useState } from 'preact/hooks';
import { api, useCsrf, type Account } from '../api.js';
import { ActionButton } from '../components/action.js';
import { LocalPassword } from './account-password.js';

/**
 * `/account`: a new API token and how to use it with the `svc` client. svc keeps only a hash of the
 * token, so the page cannot show the current one: a new one is shown once, when made.
 */
export function AccountPage({ account }: { account: Account }) {
  const [token, setToken] = useState<string>();
  const [copied, setCopied] = useState(false);
  return (
    <main>
      <h1>{account.login}</h1>
      <h2>API token</h2>
      <p class="muted">
        svc keeps only a hash of your API token and cannot show it again. A new token replaces the old one,
        which stops working, and ends your other sessions; it is shown here once.
      </p>
      {token === undefined ? null : (
        <p>
          <code class="token">{token}</code>{' '}
          <button
            type="button"
            onClick={() => void navigator.clipboard.writeText(token).then(() => setCopied(true))}
          >
            {copied ? 'Copied' : 'Copy'}
          </button>
        </p>
      )}
      <p>
        <ActionButton
          label="New token"
          kind="danger"
          run={() => api<{ token: string }>('POST', '/api/user/token?rotate=true')}
          done={(answer) => {
            setToken(answer.token);
            setCopied(false);
            // Rotating ends every session: svc sent this one a fresh cookie, with a fresh CSRF token.
            void api<Account>('GET', '/api/user').then((user) => useCsrf(user.csrf));
          }}
        />
      </p>
      <p>Use it with the svc command-line client:</p>
      <pre class="block">{`export SVC_SERVER=${location.origin}\nexport SVC_TOKEN=<your token>\nsvc repo ls`}</pre>
      <LocalPassword />
    </main>
  );
}
