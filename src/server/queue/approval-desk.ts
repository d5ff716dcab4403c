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
import { isDone } from '../../core/status.js';
import type { User } from '../../core/user.js';
import type { BuildActions } from './build-actions.js';

/** What taking decisions on stages waiting for approval needs. */
export interface ApprovalDeskDeps {
  readonly store: {
    environments: Pick<EnvironmentStore, 'find'>;
    approvals: Pick<ApprovalStore, 'add' | 'list'>;
    stages: Pick<StageStore, 'list'>;
  };
  readonly actions: Pick<BuildActions, 'approve' | 'decline' | 'markApproved'>;
  /** The provider teams a user belongs to, read with their token; absent where the provider has none svc reads. */
  readonly teamsOf?: (user: User) => Promise<ScmTeam[]>;
  readonly now?: () => number;
}

/** A comment is a few lines for the build page, not a document. */
export const MAX_COMMENT = 1000;

/**
 * Approvals and declines of stages waiting for approval, recorded with who, when and why.
 *
 * A build's stages that deploy to one environment are approved together (a promotion's stages all
 * deploy to its target): they run once `required` different people approved any of them — so the
 * person who triggered the build never approves it alone when two are required — and only the
 * environment's approvers (when it names any) may decide. Other stages waiting (a protected
 * repository, a fork's pull request) need one approval by anyone with write access, as in Drone.
 * Every decision is kept, including those that did not yet release anything.
 */
export class ApprovalDesk {
  readonly #deps: ApprovalDeskDeps;
  readonly #now: () => number;

  constructor(deps: ApprovalDeskDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
  }

  async approve(repo: Repo, build: Build, number: number, user: User, comment = ''): Promise<Build> {
    const { stage, group } = await this.#waiting(build, number, 'approve');
    checkComment(comment);
    if (group.length === 0) {
      await this.#record(build, stage, user, 'approve', comment);
      return this.#deps.actions.approve(build, number);
    }
    const environment = stage.deployment?.environment ?? '';
    await this.#checkApprover(await this.#deps.store.environments.find(repo.id, environment), user);
    const required = Math.max(...group.map((member) => member.deployment?.required ?? 1));
    const before = await this.#approvals(build, group);
    if (before.some((approval) => approval.userId === user.id)) {
      throw new ConflictError(
        `${user.login} approved the deployment to ${environment} already; it needs approvals by ${required} different people (${people(before)} of ${required} given)`,
      );
    }
    await this.#record(build, stage, user, 'approve', comment);
    // Counted after writing: of two people approving at once, at least one sees both approvals.
    if (people(await this.#approvals(build, group)) < required) return build;
    let released = build;
    for (const member of group) {
      if (member.status !== 'blocked') {
        await this.#deps.actions.markApproved(build, member.number);
        continue;
      }
      try {
        released = await this.#deps.actions.approve(build, member.number);
      } catch (error) {
        // Someone else's approval released it a moment before.
        if (!(error instanceof InvalidInputError)) throw error;
      }
    }
    return released;
  }

  async decline(repo: Repo, build: Build, number: number, user: User, comment = ''): Promise<Build> {
    const { stage, group } = await this.#waiting(build, number, 'decline');
    checkComment(comment);
    if (group.length > 0) {
      const environment = stage.deployment?.environment ?? '';
      await this.#checkApprover(await this.#deps.store.environments.find(repo.id, environment), user);
    }
    await this.#record(build, stage, user, 'decline', comment);
    return this.#deps.actions.decline(build, number, user.login);
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

  /**
   * The blocked stage, and the stages of the build whose deployment to the same environment waits
   * for approvals (empty when the stage waits for Drone's kind of approval only).
   */
  async #waiting(build: Build, number: number, verb: string): Promise<{ stage: Stage; group: Stage[] }> {
    const stages = await this.#deps.store.stages.list(build.id);
    const stage = stages.find((s) => s.number === number);
    if (stage === undefined) throw new NotFoundError(`stage ${number} of build ${build.number}`);
    if (stage.status !== 'blocked')
      throw new InvalidInputError(
        `cannot ${verb} stage ${number}: it is ${stage.status}, not waiting for approval`,
      );
    const deployment = stage.deployment;
    if (deployment === undefined || deployment.approved) return { stage, group: [] };
    const group = stages.filter(
      (s) =>
        s.deployment?.environment === deployment.environment && !s.deployment.approved && !isDone(s.status),
    );
    return { stage, group };
  }

  /** Approvers named by the environment decide alone; without names, write access (the route's) is enough. */
  async #checkApprover(environment: Environment | undefined, user: User): Promise<void> {
    if (environment === undefined) return;
    const { users, teams } = environment.approvers;
    if (users.length === 0 && teams.length === 0) return;
    if (users.includes(user.id)) return;
    if (teams.length > 0 && this.#deps.teamsOf !== undefined) {
      const mine = await this.#deps.teamsOf(user).catch((error: unknown) => {
        // A provider that cannot say makes no one a member: refusing is the safe answer.
        if (error instanceof SvcError) return [];
        throw error;
      });
      if (teams.some((team) => mine.some((own) => own.uid === team.uid))) return;
    }
    throw new ForbiddenError(
      `${user.login} may not decide on deployments to ${environment.name}: only its approvers may (repository settings, Environments)`,
    );
  }

  async #approvals(build: Build, group: readonly Stage[]): Promise<Approval[]> {
    const ids = new Set(group.map((stage) => stage.id));
    const all = await this.#deps.store.approvals.list(build.id);
    return all.filter((approval) => ids.has(approval.stageId) && approval.decision === 'approve');
  }

  async #record(build: Build, stage: Stage, user: User, decision: 'approve' | 'decline', comment: string) {
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
}

function checkComment(comment: string): void {
  if (comment.length > MAX_COMMENT)
    throw new InvalidInputError(`comment: at most ${MAX_COMMENT} characters, found ${comment.length}`);
}

/** How many different people approved. */
function people(approvals: readonly Approval[]): number {
  return new Set(approvals.map((approval) => approval.userId)).size;
}
