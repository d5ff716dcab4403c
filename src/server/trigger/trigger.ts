import type { Logger } from 'pino';
import type { Build, NewBuild } from '../../core/build.js';
import { SvcError } from '../../core/errors.js';
import type { BuildListener, QueueSignal } from '../../core/events.js';
import type { ConvertPlugin, ValidatePlugin } from '../../core/plugins.js';
import type { Repo } from '../../core/repo.js';
import type { ScmHookBuild, ScmProvider } from '../../core/scm.js';
import type { Stage } from '../../core/stage.js';
import type { Store } from '../../core/store.js';
import type { User } from '../../core/user.js';
import { FileReadings, buildEnviron, matchFacts, type SystemFacts } from '../../pipeline/index.js';
import type { PipelineLanguages } from '../../pipeline/languages/index.js';
import { scmTokenOf } from '../auth/scm-token.js';
import { needsApproval } from './approval.js';
import { cancelSuperseded, type AutoCancelDeps } from './auto-cancel.js';
import { hasValidSignature } from '../signing/signature.js';
import { KeyedLock } from './keyed-lock.js';
import { newBuildOf } from './new-build.js';
import { readPipelineFile, type PipelineFile } from './pipeline-file.js';
import { readManifest } from './read-manifest.js';
import { runProgram } from './program.js';
import { renderTemplates, type TriggerTemplates } from './templates.js';
import { askChangedFiles, pathsNote, selectWithPaths } from './changed-files.js';
import { skipDirective } from './skip.js';
import { reuseStages, type EarlierStage } from './reuse.js';
import { stagesOf } from './stages.js';
import { planDeployments } from './deployments.js';
import { runPlugins } from './plugins.js';
import { withHeadCommit } from './head-commit.js';

/** Lets the event loop run `count` times: pending I/O and the callbacks it queued go first. */
async function turnsOfTheLoop(count: number): Promise<void> {
  for (let turn = 0; turn < count; turn++) await new Promise((resolve) => setImmediate(resolve));
}

/** Whether the file may have `paths` (or Woodpecker's `path`) conditions: the word as a key. */
function mayReadPaths(text: string): boolean {
  return /(^|[\s{,])paths?\s*:/m.test(text);
}

/** What a hook gives when it names no full commit: nothing, or an abbreviated hash (Bitbucket's 12 characters). */
const INCOMPLETE_COMMIT = /^([0-9a-f]{7,39})?$/;

/** What the trigger needs: the stores it writes, the provider it reads files from, who to tell. */
export interface TriggerDeps {
  readonly store: Pick<Store, 'users' | 'repos' | 'builds' | 'environments'>;
  readonly provider: Pick<ScmProvider, 'fileContents' | 'findCommit' | 'changedFiles'>;
  readonly queue: QueueSignal;
  readonly listener: BuildListener;
  /** The server as pipelines see it (`DRONE_SYSTEM_*`); `host` is also the `instance` of triggers. */
  readonly system: SystemFacts;
  readonly logger: Logger;
  readonly now?: () => number;
  /** SVC_CONVERT_PLUGIN_*: rewrites the file before it is read. */
  readonly convert?: ConvertPlugin;
  /** SVC_VALIDATE_PLUGIN_*: may refuse, skip or block the build. */
  readonly validate?: ValidatePlugin;
  /** Jsonnet and Starlark pipeline files, run before the plugins see the file; none when absent. */
  readonly languages?: PipelineLanguages;
  /** `kind: template` documents, rendered before the plugins see the file; left alone when absent. */
  readonly templates?: TriggerTemplates;
  /** Cancels builds a new one supersedes (the repository's auto-cancel settings); none when absent. */
  readonly cancel?: AutoCancelDeps['cancel'];
}

/**
 * A build svc creates itself rather than for a webhook (a cron job, a custom build from the API, a
 * promotion): the change as a hook would describe it, built by the caller from the provider's commit,
 * plus who asked and with what.
 */
export interface BuildRequest extends ScmHookBuild {
  /** Who created it: a user's login, or `@cron`. */
  trigger: string;
  /** Custom parameters: step variables (`KEY=VALUE` of a custom build or a promotion). */
  params?: Record<string, string>;
  /** A debug build (`svc build create --debug`, a restart with debug=true). */
  debug?: boolean;
  /** The cron job's name (DRONE_CRON); empty otherwise. */
  cron?: string;
  /** A promotion's target environment (DRONE_DEPLOY_TO); empty otherwise. */
  deployTo?: string;
  /** The build this one promotes or restarts; 0 when none. */
  parent?: number;
  /** A rerun of an earlier build's failed stages: its stages, whose successes are reused (reuseStages). */
  reuse?: readonly EarlierStage[];
}

/** What shapes a build beyond its record: whether it comes from a fork, and stages to reuse. */
interface Origin {
  fork: boolean;
  reuse?: readonly EarlierStage[] | undefined;
}

/** A build was created (possibly in state `error`), or the hook asks for none, and why. */
export type TriggerResult =
  { kind: 'created'; build: Build; stages: Stage[] } | { kind: 'skipped'; reason: string };

/**
 * Turns a verified webhook into a build, as Drone's triggerer does: skip directives, the repository's
 * pipeline file at the commit, its program or templates, `${…}` substitution, lint, `trigger` matching, then one stage per
 * selected pipeline. A file that is missing, cannot be read (the owner's token refused, the provider
 * down after retries), or does not lint makes a build in state `error` that says why (Drone creates
 * none for a missing file; svc does, so that the author sees in svc and in the commit status why
 * nothing ran). The build is stored before
 * this resolves; the listener is told afterwards without waiting for it.
 */
export class Trigger {
  readonly #deps: TriggerDeps;
  readonly #now: () => number;
  readonly #perRepo = new KeyedLock();
  /**
   * Repositories whose pipeline file had `paths` conditions when last read: their next build asks
   * the provider for its changed files while it reads the file (a repository rarely drops them).
   */
  readonly #readPaths = new Set<number>();
  /** The author's structure of the files read lately: each push of an unchanged file reads it once. */
  readonly #readings = new FileReadings();

  constructor(deps: TriggerDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
  }

  async trigger(repo: Repo, hook: ScmHookBuild): Promise<TriggerResult> {
    if (skipDirective(hook)) return skipped('the commit message asks for no build ([skip ci])');
    if (hook.event === 'pull_request' && repo.ignorePullRequests)
      return skipped('the repository ignores pull requests');
    if (hook.event === 'pull_request' && hook.fork && repo.ignoreForks)
      return skipped('the repository ignores pull requests from forks');
    const owner = await this.#deps.store.users.find(repo.userId);
    const complete =
      (hook.incomplete === true || INCOMPLETE_COMMIT.test(hook.after)) && owner !== undefined
        ? await withHeadCommit(this.#deps, repo, owner, hook)
        : hook;
    // The message may only now be known (Bitbucket Server's pushes carry none).
    if (complete !== hook && skipDirective(complete))
      return skipped('the commit message asks for no build ([skip ci])');
    if (INCOMPLETE_COMMIT.test(complete.after))
      return skipped(`the head commit of ${hook.sourceRepo}:${hook.source} is unknown`);
    return this.#run(repo, newBuildOf(repo.id, complete), { fork: hook.fork });
  }

  /**
   * Creates a build that comes from svc itself (BuildRequest), the way `trigger` does for a hook:
   * the file at `request.after`, substitution, plugins, lint, `trigger:` selection (so `event: [cron]`
   * and `cron: [name]` apply), an error build when the file cannot be used. Skip directives do not
   * apply: someone asked for this build explicitly. Skipped for a disabled repository.
   */
  async create(repo: Repo, request: BuildRequest): Promise<TriggerResult> {
    if (!repo.active) return skipped('the repository is not enabled');
    return this.#run(
      repo,
      {
        ...newBuildOf(repo.id, request),
        trigger: request.trigger,
        params: request.params ?? {},
        debug: request.debug ?? false,
        cron: request.cron ?? '',
        deployTo: request.deployTo ?? '',
        parent: request.parent ?? 0,
      },
      { fork: request.fork, reuse: request.reuse },
    );
  }

  async #run(repo: Repo, base: NewBuild, origin: Origin): Promise<TriggerResult> {
    const owner = await this.#deps.store.users.find(repo.userId);
    if (owner === undefined || !owner.active)
      return skipped('the account that enabled the repository is gone or inactive; enable it again');
    const result = await this.#perRepo.run(String(repo.id), () => this.#create(repo, owner, base, origin));
    if (result.kind === 'created') {
      this.#announce(repo, result.build, result.stages);
      await this.#supersede(repo, result.build);
    }
    return result;
  }

  async #create(repo: Repo, owner: User, base: NewBuild, origin: Origin): Promise<TriggerResult> {
    const ask = () => askChangedFiles(this.#deps.provider, scmTokenOf(owner), repo, base);
    let early = this.#readPaths.has(repo.id) ? ask() : undefined;
    early?.catch(() => undefined);
    const file = await this.#readFile(repo, owner, base.after);
    if (typeof file === 'string') return this.#createError(base, file, '');
    if (!file.found) {
      return this.#createError(
        base,
        `no pipeline file found at ${base.after}: tried ${file.tried.join(', ')}`,
        '',
      );
    }
    const program = await runProgram(this.#deps, repo, owner, base, file);
    if (!program.ok) return this.#createError(base, program.error, file.text);
    const number = ((await this.#deps.store.repos.find(repo.id))?.counter ?? repo.counter) + 1;
    const rendered = await renderTemplates(
      this.#deps.templates,
      repo,
      { ...base, number, created: this.#now() },
      { path: file.path, text: program.text },
    );
    if (!rendered.ok) return this.#createError(base, rendered.error, file.text);
    const checked = await runPlugins(this.#deps, this.#now(), {
      repo,
      base,
      number,
      path: file.path,
      text: rendered.text,
    });
    if (checked.kind === 'skipped') return checked;
    if (checked.kind === 'error') return this.#createError(base, checked.error, file.text);
    // The provider's changed files are asked for while the file is read, when it may have `paths`
    // conditions: the two take about as long. A file without the word asks nothing.
    if (mayReadPaths(checked.text)) this.#readPaths.add(repo.id);
    else this.#readPaths.delete(repo.id);
    if (early === undefined && this.#readPaths.has(repo.id)) {
      early = ask();
      early.catch(() => undefined);
    }
    // Reading the file below holds the event loop for milliseconds: the provider's request must be
    // on its way first (a few turns of the loop: the client's own steps), or it waits for the
    // reading instead of running beside it.
    if (early !== undefined) await turnsOfTheLoop(3);
    const manifest = readManifest(
      checked.text,
      this.#variables(repo, base, number),
      repo.trusted,
      this.#readings,
    );
    if (!manifest.ok) return this.#createError(base, `${file.path}: ${manifest.error}`, manifest.text);
    const facts = matchFacts(repo, base, this.#deps.system.host);
    const { selected, changedFiles } = await selectWithPaths(manifest.pipelines, facts, () => early ?? ask());
    if (selected.length === 0) {
      return skipped(
        `no pipeline's trigger matches this ${base.event} (branch ${base.target}, ref ${base.ref})${pathsNote(changedFiles)}`,
      );
    }
    const plan = await planDeployments(this.#deps.store.environments, repo, base, selected, this.#now());
    if (!plan.ok) return this.#createError(base, plan.error, manifest.text);
    // A protected repository's file signed with its key needs no approval for being protected.
    const signed = repo.protected && hasValidSignature(checked.text, repo.signingKey);
    const blocked =
      needsApproval(
        { ...repo, protected: repo.protected && !signed },
        { event: base.event, fork: origin.fork },
      ) || checked.blocked;
    const stages = stagesOf(selected, blocked, plan.deployments);
    // A build whose every stage waits for approval waits itself; one stage waiting lets the others run.
    const waits = stages.every(({ stage }) => stage.status === 'blocked');
    const created = await this.#deps.store.builds.create(
      {
        ...base,
        status: waits ? 'blocked' : 'pending',
        config: manifest.text,
        ...(changedFiles === undefined ? {} : { changedFiles }),
      },
      origin.reuse === undefined ? stages : reuseStages(stages, origin.reuse),
    );
    const build = await this.#fixNumber(repo, created.build, checked.text, number);
    return { kind: 'created', build, stages: created.stages };
  }

  /**
   * The file, or why it cannot be read. A refusal lasts until someone acts (new login, access
   * granted); a provider that stays down or rate-limited after the client's retries (scm/retry.ts)
   * is recorded the same way, on an error build, rather than failing the hook: providers do not
   * redeliver a failed webhook on their own, so an answer of 500 would lose the push without a trace,
   * while the error build shows in svc and in the commit status, and restarting it reads the file again.
   */
  async #readFile(repo: Repo, owner: User, commit: string): Promise<PipelineFile | string> {
    try {
      return await readPipelineFile(this.#deps.provider, scmTokenOf(owner), repo, commit);
    } catch (error) {
      if (!(error instanceof SvcError)) throw error;
      if (['UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND'].includes(error.code)) {
        return `cannot read the pipeline file with the credentials of ${owner.login}: ${error.message}`;
      }
      this.#deps.logger.warn({ err: error, repo: repo.slug, commit }, 'trigger: the provider failed');
      return `cannot read the pipeline file: the git provider failed (${error.message}); restart the build once it answers`;
    }
  }

  async #createError(base: NewBuild, error: string, config: string): Promise<TriggerResult> {
    const now = this.#now();
    const created = await this.#deps.store.builds.create(
      { ...base, status: 'error', error, config, started: now, finished: now },
      [],
    );
    return { kind: 'created', build: created.build, stages: created.stages };
  }

  #variables(repo: Repo, base: NewBuild, number: number): Record<string, string> {
    const now = this.#now();
    return buildEnviron({ repo, build: { ...base, number, created: now }, system: this.#deps.system, now });
  }

  /**
   * Another server sharing the database may have taken the number substituted into the file: then
   * substitute again with the real one and store that text. The stages stay as selected; a trigger
   * that depends on the build number is not worth a second selection.
   */
  async #fixNumber(repo: Repo, build: Build, raw: string, expected: number): Promise<Build> {
    if (build.number === expected) return build;
    const again = readManifest(raw, this.#variables(repo, build, build.number), repo.trusted);
    if (!again.ok || again.text === build.config) return build;
    this.#deps.logger.warn(
      { repo: repo.slug, build: build.number },
      'trigger: build number changed under a concurrent hook; substituted the file again',
    );
    return this.#deps.store.builds.update({ ...build, config: again.text });
  }

  /** Auto-cancel: older builds of the same ref the new one supersedes. Never fails the new build. */
  async #supersede(repo: Repo, build: Build): Promise<void> {
    const { cancel } = this.#deps;
    if (cancel === undefined || build.status === 'error') return;
    try {
      await cancelSuperseded(
        { builds: this.#deps.store.builds, cancel, logger: this.#deps.logger },
        repo,
        build,
      );
    } catch (error) {
      this.#deps.logger.warn({ err: error, repo: repo.slug, build: build.number }, 'auto-cancel failed');
    }
  }

  #announce(repo: Repo, build: Build, stages: Stage[]): void {
    if (stages.some((stage) => stage.status === 'pending')) this.#deps.queue.wake();
    this.#deps.listener.buildUpdated({ repo, build, stages, created: true }).catch((error: unknown) => {
      this.#deps.logger.warn({ err: error, repo: repo.slug, build: build.number }, 'build listener failed');
    });
  }
}

function skipped(reason: string): TriggerResult {
  return { kind: 'skipped', reason };
}
