import { Ago, Status } from '../components/status.js';
import { Link } from '../router.js';
import { DONE } from '../wire.js';
import type { RunningEntry } from './admin-running.js';

/** A runner of `GET /api/runners`, as far as this page reads it. */
export interface Runner {
  name: string;
  kind: string;
  os: string;
  arch: string;
  capacity: number;
  last_contact: number;
  stages_running: number;
}

/** A stage a runner has taken, with its build. */
interface Taken {
  slug: string;
  number: number;
  stage: string;
  status: string;
}

/** The stages not done of the listed builds, by the machine that took them. */
function takenByMachine(entries: readonly RunningEntry[]): Map<string, Taken[]> {
  const taken = new Map<string, Taken[]>();
  for (const { slug, build } of entries) {
    for (const stage of build.stages) {
      if (stage.machine === '' || DONE.has(stage.status)) continue;
      const list = taken.get(stage.machine) ?? [];
      list.push({ slug, number: build.number, stage: stage.name, status: stage.status });
      taken.set(stage.machine, list);
    }
  }
  return taken;
}

/**
 * The runners with their load, last contact and the stages they run now (from the builds listed
 * above, so that both halves of the page agree); a machine that runs a stage without having
 * registered (a Drone runner) is listed too, after them.
 */
export function RunnerList({
  runners,
  entries,
}: {
  runners: readonly Runner[];
  entries: readonly RunningEntry[];
}) {
  const taken = takenByMachine(entries);
  const unregistered = [...taken.keys()].filter((machine) => !runners.some((r) => r.name === machine));
  if (runners.length === 0 && unregistered.length === 0)
    return (
      <p class="muted">
        No runner has polled this server yet: start one with the server’s address and its RPC secret or a
        runner token (made on <Link href="/admin">Administration</Link>).
      </p>
    );
  return (
    <ul class="running-runners">
      {runners.map((runner) => (
        <li key={runner.name} aria-label={`runner ${runner.name}`}>
          <div class="running-head">
            <strong class="machine">{runner.name}</strong>{' '}
            <span class={runner.stages_running >= runner.capacity ? 'runner-full' : 'runner-free'}>
              {runner.stages_running}/{runner.capacity} busy
            </span>
          </div>
          <div class="muted running-meta">
            {runner.kind} · {runner.os}/{runner.arch} · last contact <Ago seconds={runner.last_contact} />
          </div>
          <TakenList taken={taken.get(runner.name)} />
        </li>
      ))}
      {unregistered.map((machine) => (
        <li key={machine} aria-label={`runner ${machine}`}>
          <div class="running-head">
            <strong class="machine">{machine}</strong> <span class="muted">not registered</span>
          </div>
          <TakenList taken={taken.get(machine)} />
        </li>
      ))}
    </ul>
  );
}

function TakenList({ taken }: { taken: readonly Taken[] | undefined }) {
  if (taken === undefined || taken.length === 0) return <p class="muted running-idle">Idle.</p>;
  return (
    <ul class="running-stages">
      {taken.map((item) => (
        <li key={`${item.slug}#${item.number}/${item.stage}`}>
          <Link href={`/${item.slug}/${item.number}`}>
            {item.slug} #{item.number}
          </Link>{' '}
          <span class="stage-name">{item.stage}</span> <Status status={item.status} />
        </li>
      ))}
    </ul>
  );
}
