import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { ApiForm } from '../components/form.js';
import { navigate } from '../router.js';
import type { Build } from '../wire.js';

/** The build lists of a repository page: every build, or the newest per branch, pull request, deployment. */
export const TABS = [
  { id: 'builds', label: 'Builds' },
  { id: 'branches', label: 'Branches' },
  { id: 'pulls', label: 'Pull requests' },
  { id: 'deployments', label: 'Deployments' },
] as const;
export type Tab = (typeof TABS)[number]['id'];

export function Tabs({ tab, select }: { tab: Tab; select: (tab: Tab) => void }) {
  return (
    <div role="tablist" class="toolbar" aria-label="build lists">
      {TABS.map((entry) => (
        <button
          key={entry.id}
          type="button"
          role="tab"
          aria-selected={tab === entry.id}
          onClick={() => select(entry.id)}
        >
          {entry.label}
        </button>
      ))}
    </div>
  );
}

/** "New build": a branch (default: the default branch), an optional commit, KEY=VALUE parameters. */
export function NewBuildForm({ slug }: { slug: string }) {
  const [branch, setBranch] = useState('');
  const [commit, setCommit] = useState('');
  const [params, setParams] = useState('');
  const query = () => {
    const search = new URLSearchParams();
    if (branch !== '') search.set('branch', branch);
    if (commit !== '') search.set('commit', commit);
    for (const line of params.split('\n')) {
      const at = line.indexOf('=');
      if (at > 0) search.set(line.slice(0, at).trim(), line.slice(at + 1).trim());
    }
    return search.toString();
  };
  return (
    <details>
      <summary>New build</summary>
      <ApiForm
        name="new build"
        label="Create build"
        submit={async () =>
          navigate(`/${slug}/${(await api<Build>('POST', `/api/repos/${slug}/builds?${query()}`)).number}`)
        }
      >
        <label>
          Branch{' '}
          <input
            value={branch}
            onInput={(e) => setBranch(e.currentTarget.value)}
            placeholder="default branch"
          />
        </label>
        <label>
          Commit{' '}
          <input
            value={commit}
            onInput={(e) => setCommit(e.currentTarget.value)}
            placeholder="the branch's head"
          />
        </label>
        <label>
          Parameters (KEY=VALUE, one a line){' '}
          <textarea value={params} onInput={(e) => setParams(e.currentTarget.value)} rows={3} />
        </label>
      </ApiForm>
    </details>
  );
}
