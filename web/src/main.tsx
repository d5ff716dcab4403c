import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, useCsrf, type Account } from './api.js';
import { messageOf } from './components/load.js';
import { AccountPage } from './pages/account.js';
import { AdminPage } from './pages/admin.js';
import { AdminRunningPage } from './pages/admin-running.js';
import { SettingsPage } from './pages/settings.js';
import { BuildPage } from './pages/build.js';
import { OrgInsightsPage, RepoInsightsPage } from './pages/insights.js';
import { LogPage } from './pages/log.js';
import { RepoPage } from './pages/repo.js';
import { ReposPage } from './pages/repos.js';
import { RepoTestsPage } from './pages/repo-tests.js';
import { TestPage } from './pages/test.js';
import { Link, routeOf, usePath } from './router.js';
import { useTitle } from './components/document-status.js';
import { titleOf } from './page-titles.js';
import { Shortcuts } from './components/shortcuts.js';
import { Avatar } from './components/avatar.js';

/** The page for the current path. */
function Page({ path, account }: { path: string; account: Account }) {
  const route = routeOf(path);
  useTitle(titleOf(route));
  switch (route.page) {
    case 'repos':
      return <ReposPage />;
    case 'account':
      return <AccountPage account={account} />;
    case 'admin':
      return <AdminPage />;
    case 'admin-running':
      return <AdminRunningPage />;
    case 'settings':
      return <SettingsPage owner={route.owner} name={route.name} />;
    case 'repo':
      return <RepoPage owner={route.owner} name={route.name} />;
    case 'build':
      return <BuildPage owner={route.owner} name={route.name} number={route.number} />;
    case 'log':
      return <LogPage {...route} />;
    case 'tests':
      return <RepoTestsPage owner={route.owner} name={route.name} />;
    case 'test':
      return <TestPage owner={route.owner} name={route.name} id={route.id} />;
    case 'insights':
      return <RepoInsightsPage owner={route.owner} name={route.name} />;
    case 'org-insights':
      return <OrgInsightsPage org={route.org} />;
    case 'missing':
      return (
        <main>
          <h1>Not found</h1>
          <p>
            No page at {path}. <Link href="/">Your repositories</Link>
          </p>
        </main>
      );
  }
}

function App() {
  const path = usePath();
  const [account, setAccount] = useState<Account>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    api<Account>('GET', '/api/user').then(
      (user) => {
        useCsrf(user.csrf);
        setAccount(user);
      },
      (failure: unknown) => setError(messageOf(failure)),
    );
  }, []);
  if (error !== undefined) {
    return (
      <main>
        <p class="error" role="alert">
          {error}
        </p>
        <p>
          <a href="/login">Log in</a>
        </p>
      </main>
    );
  }
  if (account === undefined) return <p class="muted">Loading…</p>;
  return (
    <>
      <header class="top">
        <Link href="/" class="brand">
          svc
        </Link>
        <nav aria-label="account">
          {account.admin ? <Link href="/admin">Administration</Link> : null}{' '}
          <Link href="/account">
            <Avatar login={account.login} url={account.avatar_url} /> {account.login}
          </Link>{' '}
          {/* A POST that ends the session on the server, with the session's CSRF token. */}
          <form method="post" action="/logout" class="logout">
            <input type="hidden" name="csrf" value={account.csrf ?? ''} />
            <button type="submit">Log out</button>
          </form>
        </nav>
      </header>
      <Page path={path} account={account} />
      <Shortcuts />
    </>
  );
}

const root = document.getElementById('app');
if (root !== null) render(<App />, root);
