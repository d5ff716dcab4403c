import type { RunPolicy } from '../../core/engine.js';
import type { Condition, Conditions, Pipeline } from '../types.js';
import { globMatch } from './glob.js';

/**
 * What a build is, for `when` and `trigger` conditions. Drone's meanings: `branch` is the target branch
 * (the base of a pull request; empty for tags), `target` the deployment target of a promotion,
 * `instance` the server's host name, `repo` the `owner/name` slug.
 */
export interface MatchFacts {
  readonly branch: string;
  readonly event: string;
  readonly ref: string;
  readonly repo: string;
  readonly instance: string;
  readonly target: string;
  readonly cron: string;
  readonly action: string;
  /**
   * The files the build changes (`paths` conditions, svc's); undefined when they are not known,
   * and then every `paths` condition holds: a build never skips on missing information.
   */
  readonly changedFiles?: readonly string[];
}

/**
 * Whether a value passes one condition: it must match no exclude pattern, and some include pattern when
 * there are includes. An empty value fails a condition with includes (a step limited to `cron: [nightly]`
 * does not run in a push build).
 */
export function matchCondition(condition: Condition, value: string): boolean {
  if (condition.exclude.some((pattern) => globMatch(pattern, value))) return false;
  if (condition.include.length === 0) return true;
  return condition.include.some((pattern) => globMatch(pattern, value));
}

/**
 * Whether a `paths` condition holds for the changed files, as the drone-convert-pathschanged
 * plugin reads it: some changed file matches an include pattern (any file, without includes) and
 * no exclude pattern. No patterns, or files not known, hold; a known empty list holds no pattern.
 */
export function matchPaths(condition: Condition, changed: readonly string[] | undefined): boolean {
  if (condition.include.length === 0 && condition.exclude.length === 0) return true;
  if (changed === undefined) return true;
  return changed.some(
    (file) =>
      (condition.include.length === 0 || condition.include.some((pattern) => globMatch(pattern, file))) &&
      !condition.exclude.some((pattern) => globMatch(pattern, file)),
  );
}

/** Whether a pipeline's trigger or one of its steps has a `paths` condition (it needs the changed files). */
export function readsPaths(pipeline: Pick<Pipeline, 'trigger' | 'steps'>): boolean {
  const has = (condition: Condition) => condition.include.length > 0 || condition.exclude.length > 0;
  return has(pipeline.trigger.paths) || pipeline.steps.some((step) => has(step.when.paths));
}

/**
 * Whether every condition of a `when` or `trigger` section holds for the build. `status` is not part of
 * it (see `statusRunPolicy`); `paths` holds whenever the changed files are not known (`matchPaths`).
 */
export function matchConditions(conditions: Conditions, facts: MatchFacts): boolean {
  return (
    matchPaths(conditions.paths, facts.changedFiles) &&
    matchCondition(conditions.branch, facts.branch) &&
    matchCondition(conditions.event, facts.event) &&
    matchCondition(conditions.ref, facts.ref) &&
    matchCondition(conditions.repo, facts.repo) &&
    matchCondition(conditions.instance, facts.instance) &&
    matchCondition(conditions.target, facts.target) &&
    matchCondition(conditions.cron, facts.cron) &&
    matchCondition(conditions.action, facts.action)
  );
}

/**
 * When a step (or a pipeline, for `trigger.status`) runs given how the earlier ones ended. Without a
 * status condition only while everything succeeded; `[failure]` only after a failure; `[success, failure]`
 * always; a condition neither status passes, never.
 */
export function statusRunPolicy(status: Condition): RunPolicy {
  if (status.include.length === 0 && status.exclude.length === 0) return 'on-success';
  const onSuccess = matchCondition(status, 'success');
  const onFailure = matchCondition(status, 'failure');
  if (onSuccess && onFailure) return 'always';
  if (onFailure) return 'on-failure';
  return onSuccess ? 'on-success' : 'never';
}

/**
 * A build's facts as Drone takes them: the branch is the build's target branch, the target its
 * deployment target, the instance the server's host name.
 */
export function matchFacts(
  repo: { readonly slug: string },
  build: {
    readonly target: string;
    readonly event: string;
    readonly ref: string;
    readonly deployTo: string;
    readonly cron: string;
    readonly action: string;
  },
  instance: string,
): MatchFacts {
  return {
    branch: build.target,
    event: build.event,
    ref: build.ref,
    repo: repo.slug,
    instance,
    target: build.deployTo,
    cron: build.cron,
    action: build.action,
  };
}
