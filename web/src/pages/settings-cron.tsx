import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { ActionButton } from '../components/action.js';
import { ApiForm } from '../components/form.js';
import { Show, useApi } from '../components/load.js';
import { navigate } from '../router.js';

interface Cron {
  name: string;
  expr: string;
  branch: string;
  disabled: boolean;
  next: number;
}

/** The repository's cron jobs: their next run, disable/enable, run now, delete; a form to add one. */
export function CronSection({ slug }: { slug: string }) {
  const path = `/api/repos/${slug}/cron`;
  const crons = useApi<Cron[]>(path);
  const [name, setName] = useState('');
  const [expr, setExpr] = useState('@daily');
  const [branch, setBranch] = useState('');
  return (
    <section aria-label="cron jobs">
      <h2>Cron jobs</h2>
      <Show loaded={crons}>
        {(list) =>
          list.length === 0 ? (
            <p class="muted">No cron jobs. Add one below to build a branch on a schedule.</p>
          ) : (
            <ul aria-label="cron list">
              {list.map((cron) => {
                const job = `${path}/${encodeURIComponent(cron.name)}`;
                return (
                  <li key={cron.name}>
                    <code>{cron.name}</code> {cron.expr} on {cron.branch}{' '}
                    <span class="muted">
                      {cron.disabled ? 'disabled' : `next: ${new Date(cron.next * 1000).toLocaleString()}`}
                    </span>{' '}
                    <ActionButton
                      label={`Run ${cron.name} now`}
                      run={() => api<{ number: number }>('POST', job)}
                      done={(build) => navigate(`/${slug}/${build.number}`)}
                    />
                    <ActionButton
                      label={cron.disabled ? `Enable ${cron.name}` : `Disable ${cron.name}`}
                      run={() => api('PATCH', job, { disabled: !cron.disabled })}
                      done={crons.reload}
                    />
                    <ActionButton
                      label={`Delete ${cron.name}`}
                      kind="danger"
                      run={() => api('DELETE', job)}
                      done={crons.reload}
                    />
                  </li>
                );
              })}
            </ul>
          )
        }
      </Show>
      <ApiForm
        name="add a cron job"
        label="Add cron job"
        submit={() => api('POST', path, { name, expr, ...(branch === '' ? {} : { branch }) })}
        done={() => {
          setName('');
          crons.reload();
        }}
      >
        <label>
          Name <input value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          Schedule{' '}
          <input value={expr} onInput={(e) => setExpr(e.currentTarget.value)} aria-describedby="cron-help" />
        </label>
        <span id="cron-help" class="muted">
          5 fields, 6 with seconds first, or @hourly, @daily, @weekly, @monthly, @yearly
        </span>
        <label>
          Branch{' '}
          <input
            value={branch}
            onInput={(e) => setBranch(e.currentTarget.value)}
            placeholder="default branch"
          />
        </label>
      </ApiForm>
    </section>
  );
}
