/**
 * A provider team that may approve deployments: named by its organization and slug for people,
 * and matched by the provider's own id (`uid`), which survives renames of the team.
 */
export interface TeamRef {
  readonly org: string;
  readonly slug: string;
  readonly uid: string;
}

/** Who may approve a deployment: svc users (by id) and members of provider teams. */
export interface Approvers {
  readonly users: readonly number[];
  readonly teams: readonly TeamRef[];
}

/**
 * A repository's deployment environment (issue 35): stages that deploy there — a promotion to it,
 * or a pipeline that declares `environment: <name>` — wait `blocked` for `required` approvals by
 * distinct approvers, and only builds of `branches` may deploy there at all.
 */
export interface Environment {
  readonly id: number;
  readonly repoId: number;
  /** Unique within the repository; what `environment:` and a promotion's target name. */
  name: string;
  /** Empty lists: anyone with write access to the repository may approve. */
  approvers: Approvers;
  /** Approvals by distinct people a stage needs before it runs (0–5); 0 runs it at once. */
  required: number;
  /** Globs of the branches (DRONE_BRANCH) that may deploy here; empty: every branch. */
  branches: string[];
  /** Minutes a stage waits for its approvals, counted from the build's creation; then it is declined. */
  timeout: number;
  readonly created: number;
  updated: number;
  readonly version: number;
}

export type NewEnvironment = Omit<Environment, 'id' | 'created' | 'updated' | 'version'>;

/** What a stage that deploys to an environment carries (Stage.deployment). */
export interface StageDeployment {
  readonly environment: string;
  /** Approvals the stage needs, as the environment said when the build was created. */
  readonly required: number;
  /** The approvals were given (or none were needed): the stage may run and receives the environment's secrets. */
  readonly approved: boolean;
  /** Epoch milliseconds after which a stage still waiting is declined; 0 when it does not wait. */
  readonly deadline: number;
}

/**
 * Persistence of environments.
 * - `create` throws ConflictError when the repository has an environment of that name.
 * - `update` is optimistic-locked (StaleVersionError); the name may change.
 */
export interface EnvironmentStore {
  list(repoId: number): Promise<Environment[]>;
  find(repoId: number, name: string): Promise<Environment | undefined>;
  create(environment: NewEnvironment): Promise<Environment>;
  update(environment: Environment): Promise<Environment>;
  delete(id: number): Promise<void>;
}

/** What someone (or the clock) decided about a stage waiting for approval. */
export type ApprovalDecision = 'approve' | 'decline' | 'timeout';

/** One decision on a stage waiting for approval, kept with the build. */
export interface Approval {
  readonly id: number;
  readonly buildId: number;
  readonly stageId: number;
  /** The stage's number in its build. */
  readonly stage: number;
  /** Who decided (0 for a timeout); `login` as it was then, for display. */
  readonly userId: number;
  readonly login: string;
  readonly decision: ApprovalDecision;
  readonly comment: string;
  readonly created: number;
}

export type NewApproval = Omit<Approval, 'id'>;

/** Persistence of approvals: appended, listed by build in the order given; they go with their build. */
export interface ApprovalStore {
  add(approval: NewApproval): Promise<Approval>;
  list(buildId: number): Promise<Approval[]>;
}
