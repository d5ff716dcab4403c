import type { Build } from '../../core/build.js';
import type { Approval, ApprovalStore, Environment, EnvironmentStore } from '../../core/environment.js';
import {
  ConflictError,
  ForbiddenError,
  InvalidInputError,
  NotFoundError,
  SvcError,
} from '../../core/errors.js';
import type { Repo } from '../../core/repo.js';
import type { ScmTeam } from '../../core/scm.js';
import type { Stage, StageStore } from '../../core/stage.js';
import type { User } from '../../core/user.js';
import type { BuildActions } from './build-actions.js';

/** What taking decisions on stages waiting for approval needs. */
export interface ApprovalDeskDeps {
  readonly store: {
    environments: Pick<EnvironmentStore, 'find'>;
    approvals: Pick<ApprovalStore, 'add' | 'list'>;
    stages: Pick<StageStore, 'findNumber'>;
  };
  readonly actions: Pick<BuildActions, 'approve' | 'decline'>;
  /** The provider teams a user belongs to, read with their token; absent where the provider has none svc reads. */
  readonly teamsOf?: (user: User) => Promise<ScmTeam[]>;
  readonly now?: () => number;
}

/** A comment is a few lines for the build page, not a document. */
export const MAX_COMMENT = 1000;

/**
 * Approvals and declines of stages waiting for approval, recorded with who, when and why. A stage
 * that deploys to an environment needing approvals runs once `required` different people approved
 * it — so the person who triggered the build never approves it alone when two are required — and
 * only the environment's approvers (when it names any) may decide. Other stages waiting (a
 * protected repository, a fork's pull request) need one approval by anyone with write access, as
 * in Drone. Every decision is kept, including those that did not yet release the stage.
 */
export class ApprovalDesk {
  readonly #deps: ApprovalDeskDeps;
  readonly #now: () => number;

  constructor(deps: ApprovalDeskDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
  }

  async approve(repo: Repo, build: Build, number: number, user: User, comment = ''): Promise<Build> {
    const stage = await this.#waiting(build, number, 'approve');
    const environment = await this.#environmentOf(repo, stage);
    await this.#checkApprover(environment, stage, user);
    const required = stage.deployment?.approved === false ? stage.deployment.required : 1;
    const before = await this.#approvals(build, stage);
    if (before.some((approval) => approval.userId === user.id)) {
      throw new ConflictError(
        `${user.login} approved stage ${number} already; ${stage.deployment?.environment ?? 'it'} needs approvals by ${required} different people (${approvers(before)} of ${required} given)`,
      );
    }
    await this.#record(build, stage, user, 'approve', comment);
    // Counted after writing: of two people approving at once, at least one sees both approvals.
    if (approvers(await this.#approvals(build, stage)) < required) return build;
    return this.#release(() => this.#deps.actions.approve(build, number), build);
  }

  async decline(repo: Repo, build: Build, number: number, user: User, comment = ''): Promise<Build> {
    const stage = await this.#waiting(build, number, 'decline');
    await this.#checkApprover(await this.#environmentOf(repo, stage), stage, user);
    const declined = await this.#deps.actions.decline(build, number, user.login);
    await this.#record(build, stage, user, 'decline', comment);
    return declined;
  }

  /** Declines a stage whose approvals did not come before its deadline (the sweeper's call). */
  async expire(build: Build, stage: Stage): Promise<void> {
    const environment = stage.deployment?.environment ?? '';
    try {
      await this.#deps.actions.decline(
        build,
        stage.number,
        `nobody: ${environment} was not approved in time`,
      );
    } catch (error) {
      // Approved or declined a moment ago, perhaps by another server's sweeper: nothing to do.
      if (error instanceof InvalidInputError) return;
      throw error;
    }
    await this.#deps.store.approvals.add({
      buildId: build.id,
      stageId: stage.id,
      stage: stage.number,
      userId: 0,
      login: '',
      decision: 'timeout',
      comment: `no approval for ${environment} before its timeout`,
      created: this.#now(),
    });
  }

  async #waiting(build: Build, number: number, verb: string): Promise<Stage> {
    const stage = await this.#deps.store.stages.findNumber(build.id, number);
    if (stage === undefined) throw new NotFoundError(`stage ${number} of build ${build.number}`);
    if (stage.status !== 'blocked')
      throw new InvalidInputError(
        `cannot ${verb} stage ${number}: it is ${stage.status}, not waiting for approval`,
      );
    return stage;
  }

  async #environmentOf(repo: Repo, stage: Stage): Promise<Environment | undefined> {
    const name = stage.deployment?.environment;
    return name === undefined ? undefined : this.#deps.store.environments.find(repo.id, name);
  }

  /** Approvers named by the environment decide alone; without names, write access (the route's) is enough. */
  async #checkApprover(environment: Environment | undefined, stage: Stage, user: User): Promise<void> {
    if (environment === undefined || stage.deployment?.approved !== false) return;
    const { users, teams } = environment.approvers;
    if (users.length === 0 && teams.length === 0) return;
    if (users.includes(user.id)) return;
    if (teams.length > 0 && this.#deps.teamsOf !== undefined) {
      const mine = await this.#deps.teamsOf(user).catch((error: unknown) => {
        if (error instanceof SvcError) return [];
        throw error;
      });
      if (teams.some((team) => mine.some((own) => own.uid === team.uid))) return;
    }
    throw new ForbiddenError(
      `${user.login} may not decide on deployments to ${environment.name}: only its approvers may (repository settings, Environments)`,
    );
  }

  async #approvals(build: Build, stage: Stage): Promise<Approval[]> {
    const all = await this.#deps.store.approvals.list(build.id);
    return all.filter((approval) => approval.stageId === stage.id && approval.decision === 'approve');
  }

  async #record(build: Build, stage: Stage, user: User, decision: 'approve' | 'decline', comment: string) {
    if (comment.length > MAX_COMMENT)
      throw new InvalidInputError(`comment: at most ${MAX_COMMENT} characters, found ${comment.length}`);
    await this.#deps.store.approvals.add({
      buildId: build.id,
      stageId: stage.id,
      stage: stage.number,
      userId: user.id,
      login: user.login,
      decision,
      comment,
      created: this.#now(),
    });
  }

  /** Releases the stage; someone else's approval may have released it a moment before. */
  async #release(approve: () => Promise<Build>, build: Build): Promise<Build> {
    try {
      return await approve();
    } catch (error) {
      if (error instanceof InvalidInputError) return build;
      throw error;
    }
  }
}

/** How many different people approved. */
function approvers(approvals: readonly Approval[]): number {
  return new Set(approvals.map((approval) => approval.userId)).size;
}
