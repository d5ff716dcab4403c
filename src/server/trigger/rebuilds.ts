import type { Build } from '../../core/build.js';
import { comesFromFork } from '../../core/fork.js';
import { InvalidInputError } from '../../core/errors.js';
import type { Repo } from '../../core/repo.js';
import type { Store } from '../../core/store.js';
import type { EarlierStage } from './reuse.js';
import type { BuildRequest, Trigger, TriggerResult } from './trigger.js';

/** What building an earlier build's commit again needs. */
export interface RebuildsDeps {
  readonly store: Pick<Store, 'stages' | 'steps' | 'logs'>;
  readonly trigger: Pick<Trigger, 'create'>;
}

/** Who asks, and the build parameters they add (they win over the earlier build's). */
export interface RebuildBy {
  login: string;
  params: Record<string, string>;
  /** Restart as a debug build (`debug=true`); otherwise the new build is not one. */
  debug?: boolean;
}

/**
 * New builds made from an earlier one, as Drone makes them: a restart (same event, commit and ref),
 * a promotion or a rollback (event `promote`/`rollback`, DRONE_DEPLOY_TO the target). They go through
 * the trigger like any build (the pipeline file at the commit, `trigger:` selection, approval), and
 * record the earlier build as their parent.
 */
export class Rebuilds {
  readonly #deps: RebuildsDeps;

  constructor(deps: RebuildsDeps) {
    this.#deps = deps;
  }

  /**
   * Restarts a build; with `failedOnly`, the stages that succeeded keep their result (and logs) and
   * only the others run again. A blocked or declined build cannot be restarted (as in Drone): it is
   * approved or declined instead.
   */
  async restart(repo: Repo, build: Build, by: RebuildBy, failedOnly: boolean): Promise<TriggerResult> {
    if (build.status === 'blocked' || build.status === 'declined') {
      throw new InvalidInputError(
        `build ${build.number} is ${build.status}: approve or decline it instead of restarting it`,
      );
    }
    const earlier = failedOnly ? await this.#deps.store.stages.listWithSteps(build.id) : undefined;
    if (earlier !== undefined && earlier.every((stage) => stage.status === 'success')) {
      throw new InvalidInputError(
        `failed: every stage of build ${build.number} succeeded; restart it without failed=true to run it all again`,
      );
    }
    const reuse = earlier?.map(({ steps, ...stage }) => ({ stage, steps }));
    const result = await this.#deps.trigger.create(repo, {
      ...requestOf(repo, build, by),
      ...(reuse === undefined ? {} : { reuse }),
    });
    if (result.kind === 'created' && reuse !== undefined) await this.#copyLogs(result.stages, reuse);
    return result;
  }

  /** Promotes (or rolls back) a build to a deployment target. */
  promote(
    repo: Repo,
    build: Build,
    by: RebuildBy,
    event: 'promote' | 'rollback',
    target: string,
  ): Promise<TriggerResult> {
    return this.#deps.trigger.create(repo, { ...requestOf(repo, build, by), event, deployTo: target });
  }

  /** The reused stages' steps get the earlier steps' logs: a rerun shows the whole build. */
  async #copyLogs(
    stages: readonly { id: number; name: string; status: string }[],
    earlier: readonly EarlierStage[],
  ) {
    const byName = new Map(earlier.map((entry) => [entry.stage.name, entry]));
    for (const stage of stages) {
      const previous = byName.get(stage.name);
      if (previous === undefined || previous.stage.status !== 'success' || stage.status !== 'success')
        continue;
      const steps = await this.#deps.store.steps.list(stage.id);
      for (const step of steps) {
        const from = previous.steps.find((candidate) => candidate.number === step.number);
        const lines = from === undefined ? undefined : await this.#deps.store.logs.find(from.id);
        if (lines !== undefined) await this.#deps.store.logs.create(step.id, lines);
      }
    }
  }
}

/** The earlier build's change as a request, asked for by `by`, with its parameters merged over. */
function requestOf(repo: Repo, build: Build, by: RebuildBy): BuildRequest {
  return {
    event: build.event,
    action: build.action,
    ref: build.ref,
    before: build.before,
    after: build.after,
    source: build.source,
    target: build.target,
    sourceRepo: build.sourceRepo,
    fork: comesFromFork(build, repo.slug),
    title: build.title,
    message: build.message,
    link: build.link,
    authorLogin: build.authorLogin,
    authorName: build.authorName,
    authorEmail: build.authorEmail,
    authorAvatar: build.authorAvatar,
    sender: build.sender,
    trigger: by.login,
    params: { ...build.params, ...by.params },
    debug: by.debug ?? false,
    cron: build.cron,
    deployTo: build.deployTo,
    parent: build.number,
  };
}
