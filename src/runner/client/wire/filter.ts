import { globMatch } from '../../../pipeline/index.js';
import type { WireFilter } from './schemas.js';

/** What a runner filter is matched against: the stage, its repository and its build's event. */
export interface FilterFacts {
  stage: { kind: string; type: string; os: string; arch: string; variant: string; kernel: string };
  labels: Readonly<Record<string, string>>;
  repo: { slug: string; trusted: boolean };
  event: string;
}

/** The runner's SVC_LIMIT_* settings; empty lists and `trusted: false` limit nothing. */
export type RunnerLimits = NonNullable<WireFilter['limits']>;

/**
 * Whether a runner asking with `filter` may take a stage, by Drone's rules:
 * - kind and type must be equal (empty stands for `pipeline` and `docker`; a `macstadium` runner also
 *   takes `type: vm` stages, svc's alias for its VMs);
 * - os and arch must be equal (an empty value on the stage matches any runner, and a runner that
 *   names none, the ssh runner, whose hosts are of every platform, takes any);
 * - variant and kernel must be equal when the stage names one;
 * - labels must be EXACTLY equal: the stage's labels (the pipeline's `node`) and the runner's
 *   SVC_RUNNER_LABELS are the same map — a runner with labels takes no stage without them, and a
 *   stage with labels goes only to a runner with exactly those;
 * - the runner's limits (svc's addition), when given, must admit the build: see `matchesLimits`.
 */
export function matchesFilter(filter: WireFilter, facts: FilterFacts): boolean {
  const { stage } = facts;
  return (
    (stage.kind || 'pipeline') === (filter.kind || 'pipeline') &&
    sameType(stage.type || 'docker', filter.type || 'docker') &&
    (stage.os === '' || filter.os === '' || stage.os === filter.os) &&
    (stage.arch === '' || filter.arch === '' || stage.arch === filter.arch) &&
    (stage.variant === '' || stage.variant === filter.variant) &&
    (stage.kernel === '' || stage.kernel === filter.kernel) &&
    sameLabels(facts.labels, filter.labels) &&
    (filter.limits === undefined || matchesLimits(filter.limits, facts.repo, facts.event))
  );
}

/**
 * Whether a runner's SVC_LIMIT_EVENTS / SVC_LIMIT_REPOS / SVC_LIMIT_TRUSTED admit a build: its event
 * is listed (when events are listed), its repository matches one pattern such as `octocat/*` (when
 * repositories are listed), and the repository is trusted (when only trusted ones are allowed).
 */
export function matchesLimits(
  limits: RunnerLimits,
  repo: { slug: string; trusted: boolean },
  event: string,
): boolean {
  if (limits.events.length > 0 && !limits.events.includes(event)) return false;
  if (limits.repos.length > 0 && !limits.repos.some((pattern) => globMatch(pattern, repo.slug))) return false;
  return !limits.trusted || repo.trusted;
}

function sameLabels(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && a[key] === b[key])
  );
}

/** A stage's type and a runner's: equal, or `vm` for the VM runner (`macstadium`). */
function sameType(stage: string, runner: string): boolean {
  return stage === runner || (stage === 'vm' && runner === 'macstadium');
}
