import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { ActionButton } from '../components/action.js';
import { ApiForm } from '../components/form.js';
import { Show, useApi } from '../components/load.js';
import type { Repo } from '../wire.js';
import { CacheSection } from './settings-caches.js';
import { CronSection } from './settings-cron.js';
import { EnvironmentSection } from './settings-environments.js';
import { SecretSection } from './settings-secrets.js';

interface RepoSettings extends Repo {
  config_path: string;
  trusted: boolean;
  protected: boolean;
  timeout: number;
  throttle: number;
  approval: string;
  ignore_forks: boolean;
  ignore_pull_requests: boolean;
  auto_cancel_pull_requests: boolean;
  auto_cancel_pushes: boolean;
  auto_cancel_running: boolean;
  fork_id_tokens: boolean;
}

const FLAGS: [keyof RepoSettings, string][] = [
  ['ignore_forks', 'Ignore pull requests from forks'],
  ['ignore_pull_requests', 'Ignore pull requests'],
  ['auto_cancel_pushes', 'Cancel older builds of a branch on a new push'],
  ['auto_cancel_pull_requests', 'Cancel older builds of a pull request on a new commit'],
  ['auto_cancel_running', 'Cancel running builds too'],
  ['fork_id_tokens', 'Give pull requests from forks the OIDC tokens their steps ask for'],
];

/**
 * `/{owner}/{name}/settings`: the repository's settings, secrets, cron jobs and (for writers) build
 * caches; disable and repair.
 */
export function SettingsPage({ owner, name }: { owner: string; name: string }) {
  const slug = `${owner}/${name}`;
  const repo = useApi<RepoSettings>(`/api/repos/${slug}`);
  return (
    <main>
      <h1>{slug} settings</h1>
      <Show loaded={repo}>
        {(value) => (
          <>
            <GeneralSettings repo={value} changed={repo.reload} />
            <SecretSection slug={slug} />
            <EnvironmentSection slug={slug} admin={value.permissions?.admin === true} />
            <CronSection slug={slug} />
            {value.permissions?.write === true ? (
              <CacheSection slug={slug} admin={value.permissions.admin} />
            ) : null}
            <section aria-label="webhook">
              <h2>Webhook and builds</h2>
              <div class="toolbar">
                <ActionButton label="Repair webhook" run={() => api('POST', `/api/repos/${slug}/repair`)} />
                {value.active ? (
                  <ActionButton
                    label="Disable"
                    kind="danger"
                    run={() => api('DELETE', `/api/repos/${slug}`)}
                    done={repo.reload}
                  />
                ) : (
                  <ActionButton
                    label="Enable"
                    run={() => api('POST', `/api/repos/${slug}`)}
                    done={repo.reload}
                  />
                )}
              </div>
            </section>
          </>
        )}
      </Show>
    </main>
  );
}

function GeneralSettings({ repo, changed }: { repo: RepoSettings; changed: () => void }) {
  const [draft, setDraft] = useState(repo);
  const admin = repo.permissions?.admin === true;
  const set = (patch: Partial<RepoSettings>) => setDraft({ ...draft, ...patch });
  const body = {
    config_path: draft.config_path,
    timeout: draft.timeout,
    visibility: draft.visibility,
    approval: draft.approval,
    ...Object.fromEntries(FLAGS.map(([key]) => [key, draft[key]])),
    ...(admin ? { trusted: draft.trusted, protected: draft.protected, throttle: draft.throttle } : {}),
  };
  return (
    <section aria-label="general settings">
      <h2>General</h2>
      <ApiForm
        label="Save settings"
        submit={() => api('PATCH', `/api/repos/${repo.slug}`, body)}
        done={changed}
      >
        <label>
          Pipeline file{' '}
          <input value={draft.config_path} onInput={(e) => set({ config_path: e.currentTarget.value })} />
        </label>
        <label>
          Timeout (minutes){' '}
          <input
            type="number"
            min={1}
            value={draft.timeout}
            onInput={(e) => set({ timeout: Number(e.currentTarget.value) })}
          />
        </label>
        <label>
          Visibility{' '}
          <select value={draft.visibility} onChange={(e) => set({ visibility: e.currentTarget.value })}>
            <option value="public">public</option>
            <option value="internal">internal</option>
            <option value="private">private</option>
          </select>
        </label>
        <label>
          Builds that wait for approval{' '}
          <select value={draft.approval} onChange={(e) => set({ approval: e.currentTarget.value })}>
            <option value="none">none</option>
            <option value="forks">pull requests from forks</option>
            <option value="pull_requests">every pull request</option>
            <option value="all">every build</option>
          </select>
        </label>
        {FLAGS.map(([key, label]) => (
          <label key={key}>
            <input
              type="checkbox"
              checked={draft[key] === true}
              onChange={(e) => set({ [key]: e.currentTarget.checked })}
            />{' '}
            {label}
          </label>
        ))}
        {admin ? (
          <fieldset>
            <legend>Administrators only</legend>
            <label>
              <input
                type="checkbox"
                checked={draft.trusted}
                onChange={(e) => set({ trusted: e.currentTarget.checked })}
              />{' '}
              Trusted (privileged steps, host volumes)
            </label>
            <label>
              <input
                type="checkbox"
                checked={draft.protected}
                onChange={(e) => set({ protected: e.currentTarget.checked })}
              />{' '}
              Protected (unsigned pipeline files wait for approval)
            </label>
            <label>
              Throttle (running builds at most, 0: none){' '}
              <input
                type="number"
                min={0}
                value={draft.throttle}
                onInput={(e) => set({ throttle: Number(e.currentTarget.value) })}
              />
            </label>
          </fieldset>
        ) : null}
      </ApiForm>
    </section>
  );
}
