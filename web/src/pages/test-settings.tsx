import { api } from '../api.js';
import { ActionButton } from '../components/action.js';
import { Show, useApi } from '../components/load.js';
import { Ago } from '../components/status.js';

interface TestSettings {
  quarantine: boolean;
  login: string;
  updated: number;
}

/**
 * The repository's test settings on its Tests page: quarantine is opt-in (docs/test-reports.md),
 * turned on or off by an admin; anyone else sees the API's refusal next to the button.
 */
export function TestSettingsSection({ slug }: { slug: string }) {
  const path = `/api/repos/${slug}/tests/settings`;
  const settings = useApi<TestSettings>(path);
  return (
    <section aria-label="test settings">
      <h2>Quarantine</h2>
      <Show loaded={settings}>
        {(current) => (
          <div class="toolbar" role="group" aria-label="quarantine setting">
            <p>
              Quarantine is <strong>{current.quarantine ? 'on' : 'off'}</strong>
              {current.quarantine
                ? ': quarantined tests’ failures are shown and counted, but do not fail their steps.'
                : ': every failure fails its step; tests can be quarantined once it is on.'}{' '}
              {current.login === '' ? null : (
                <span class="muted">
                  Changed by {current.login} <Ago seconds={current.updated} />.
                </span>
              )}
            </p>
            <ActionButton
              label={current.quarantine ? 'Turn quarantine off' : 'Turn quarantine on'}
              run={() => api<TestSettings>('PATCH', path, { quarantine: !current.quarantine })}
              done={() => settings.reload()}
            />
          </div>
        )}
      </Show>
    </section>
  );
}
