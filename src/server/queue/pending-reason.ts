import type { QueuedStage } from '../../core/queue.js';
import type { Runner } from '../../core/runner.js';
import type { Stage } from '../../core/stage.js';
import { matchesFilter, type WireFilter } from '../../runner/client/wire/index.js';

/** Why a stage waits, as a stable code (docs/api.md lists them). */
export const PENDING_CODES = [
  'waiting_for_approval',
  'waiting_on_dependencies',
  'accepted',
  'queue_paused',
  'concurrency_limit',
  'repository_throttle',
  'no_runner',
  'labels_mismatch',
  'runners_busy',
  'waiting_for_runner',
] as const;
export type PendingCode = (typeof PENDING_CODES)[number];

export interface PendingReason {
  code: PendingCode;
  message: string;
}

/** A registered runner and how many stages it holds now (taken, not finished). */
export interface RunnerLoad {
  runner: Runner;
  running: number;
}

/** What the reasons are computed from, besides the stage's own facts. */
export interface PendingContext {
  runners: readonly RunnerLoad[];
  /** When the queue was paused (epoch ms), 0 while it runs. */
  pausedSince: number;
  now: number;
  /** Milliseconds since its last poll within which a runner counts as present (default 5 minutes). */
  recent?: number;
}

/** A stage's facts as the queue reads them; `active` and `running` as in QueuedStage. */
export type PendingFacts = Pick<QueuedStage, 'stage' | 'repo' | 'build' | 'active' | 'running'>;

/** A runner that polled this recently is present: it may take a stage (and counts in the metrics). */
export const RUNNER_RECENT_MS = 5 * 60_000;
const RECENT = RUNNER_RECENT_MS;

/**
 * Why a stage that has not started waits, or undefined for a stage that does not wait (running,
 * finished). In the order the obstacles are met: approval, dependencies, a runner already starting
 * it, the paused queue, the pipeline's concurrency limit, the repository's throttle, then the
 * runners: none of the stage's platform polled lately, their labels differ (naming the nearest
 * runner and the first differing label), all matching ones are full, or one can take it at its next
 * poll. Runners' SVC_LIMIT_* settings are not known to the server (only sent with each poll), so a
 * runner they exclude still counts as matching.
 */
export function pendingReason(facts: PendingFacts, context: PendingContext): PendingReason | undefined {
  const { stage } = facts;
  if (stage.status === 'blocked') {
    return {
      code: 'waiting_for_approval',
      message: 'the build waits for approval by someone with write access to the repository',
    };
  }
  if (stage.status === 'waiting_on_dependencies') {
    return {
      code: 'waiting_on_dependencies',
      message: `waiting for ${plural(stage.dependsOn.length, 'stage')} it depends on to finish: ${stage.dependsOn.join(', ')}`,
    };
  }
  if (stage.status !== 'pending') return undefined;
  if (stage.machine !== '') {
    return { code: 'accepted', message: `runner "${stage.machine}" took the stage and is starting it` };
  }
  if (context.pausedSince > 0) {
    return {
      code: 'queue_paused',
      message: `the queue is paused (since ${new Date(context.pausedSince).toISOString()}): runners get no new stages until an administrator resumes it`,
    };
  }
  if (stage.limit > 0 && facts.active >= stage.limit) {
    return {
      code: 'concurrency_limit',
      message: `pipeline "${stage.name}" already runs ${facts.active} time(s); its concurrency limit is ${stage.limit}`,
    };
  }
  const { throttle } = facts.repo;
  if (throttle > 0 && !facts.running.thisBuild && facts.running.builds >= throttle) {
    return {
      code: 'repository_throttle',
      message: `repository ${facts.repo.slug} already runs ${plural(facts.running.builds, 'build')}; its throttle is ${throttle}`,
    };
  }
  return runnerReason(facts, context);
}

function runnerReason(facts: PendingFacts, context: PendingContext): PendingReason {
  const { stage } = facts;
  const since = context.now - (context.recent ?? RECENT);
  const present = context.runners.filter((load) => load.runner.lastSeen >= since);
  // Same platform: the runner's filter with the stage's own labels, so that only labels may differ.
  const platform = present.filter((load) =>
    matchesFilter(filterOf(load.runner, stage.labels), factsOf(facts)),
  );
  if (platform.length === 0) {
    return {
      code: 'no_runner',
      message: `no runner for ${describePlatform(stage)} has polled in the last ${Math.round((context.recent ?? RECENT) / 60_000)} minutes`,
    };
  }
  const matching = platform.filter((load) => matchesFilter(filterOf(load.runner), factsOf(facts)));
  if (matching.length === 0) {
    const nearest = [...platform].sort(
      (a, b) =>
        labelDifferences(stage.labels, a.runner.labels).length -
          labelDifferences(stage.labels, b.runner.labels).length ||
        a.runner.name.localeCompare(b.runner.name),
    )[0] as RunnerLoad;
    const [first] = labelDifferences(stage.labels, nearest.runner.labels);
    return {
      code: 'labels_mismatch',
      message: `no runner has the stage's labels ${labelsText(stage.labels)}; the nearest, "${nearest.runner.name}", has ${labelsText(nearest.runner.labels)} (${first ?? 'labels differ'})`,
    };
  }
  const free = matching.filter((load) => load.runner.capacity === 0 || load.running < load.runner.capacity);
  if (free.length === 0) {
    const loads = matching.map((l) => `${l.runner.name} ${l.running}/${l.runner.capacity}`).join(', ');
    return {
      code: 'runners_busy',
      message:
        matching.length === 1
          ? `the only matching runner is busy (${loads} stages)`
          : `all ${matching.length} matching runners are busy (${loads} stages)`,
    };
  }
  const names = free.map((l) => `"${l.runner.name}"`).join(', ');
  return {
    code: 'waiting_for_runner',
    message: `waiting for the next poll of a matching runner with a free slot: ${names}`,
  };
}

/** What a registered runner polls with (its SVC_LIMIT_* are not known: none). */
function filterOf(runner: Runner, labels: Readonly<Record<string, string>> = runner.labels): WireFilter {
  return {
    kind: 'pipeline',
    type: runner.type,
    os: runner.os,
    arch: runner.arch,
    variant: '',
    kernel: '',
    labels: { ...labels },
    limits: undefined,
    runner: undefined,
  };
}

function factsOf({ stage, repo, build }: PendingFacts) {
  return { stage, labels: stage.labels, repo, event: build.event };
}

/** How the runner's labels differ from the stage's, one phrase per label, by label name. */
function labelDifferences(
  wanted: Readonly<Record<string, string>>,
  has: Readonly<Record<string, string>>,
): string[] {
  const keys = [...new Set([...Object.keys(wanted), ...Object.keys(has)])].sort();
  const out: string[] = [];
  for (const key of keys) {
    const want = wanted[key];
    const got = has[key];
    if (want === got) continue;
    if (got === undefined) out.push(`it lacks label ${key}=${want ?? ''}`);
    else if (want === undefined) out.push(`it has label ${key}=${got}, which the stage does not ask for`);
    else out.push(`its label ${key} is ${got}, the stage asks for ${want}`);
  }
  return out;
}

function labelsText(labels: Readonly<Record<string, string>>): string {
  const pairs = Object.entries(labels)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${v}`);
  return pairs.length === 0 ? '(none)' : pairs.join(', ');
}

function describePlatform(stage: Stage): string {
  const os = stage.os || 'any os';
  const arch = stage.arch || 'any arch';
  const extra = [stage.variant, stage.kernel].filter((v) => v !== '').join(' ');
  return `type ${stage.type || 'docker'} on ${os}/${arch}${extra === '' ? '' : ` ${extra}`}`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
