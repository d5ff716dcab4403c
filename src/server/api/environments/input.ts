import { z } from 'zod';
import type { Approvers, Environment, NewEnvironment, TeamRef } from '../../../core/environment.js';
import { InvalidInputError, SvcError } from '../../../core/errors.js';
import type { ScmProvider, ScmToken } from '../../../core/scm.js';
import type { UserStore } from '../../../core/user.js';
import { EnvironmentName } from './name.js';

/** Approvals a deployment may need; more people than this is a meeting, not a review. */
export const MAX_APPROVALS = 5;
/** Minutes a deployment waits for approval by default (a day), and at most (30 days). */
export const DEFAULT_TIMEOUT = 24 * 60;
export const MAX_TIMEOUT = 30 * 24 * 60;

const Team = z.string().regex(/^[^/\s]+\/[^/\s]+$/, 'a team as org/slug, e.g. acme/release-managers');

const ApproversInput = z
  .object({
    users: z.array(z.string().min(1, 'a login')).max(100).default([]),
    teams: z.array(Team).max(20).default([]),
  })
  .strict();

const fields = {
  approvers: ApproversInput,
  required_approvals: z.number().int().min(0).max(MAX_APPROVALS),
  branches: z.array(z.string().min(1, 'a branch glob, e.g. main or release/*').max(255)).max(50),
  timeout: z.number().int().min(1, 'at least 1 minute').max(MAX_TIMEOUT, 'at most 30 days (43200 minutes)'),
};

/** `POST …/environments`. */
export const NewEnvironmentBody = z
  .object({
    name: EnvironmentName,
    approvers: fields.approvers.default({ users: [], teams: [] }),
    required_approvals: fields.required_approvals.default(1),
    branches: fields.branches.default([]),
    timeout: fields.timeout.default(DEFAULT_TIMEOUT),
  })
  .strict();

/** `PATCH …/environments/{environment}`: only the fields given change. */
export const EnvironmentPatch = z
  .object({
    name: EnvironmentName.optional(),
    approvers: fields.approvers.optional(),
    required_approvals: fields.required_approvals.optional(),
    branches: fields.branches.optional(),
    timeout: fields.timeout.optional(),
  })
  .strict();

/** What resolving approvers' names to ids needs: svc's accounts, and the provider's teams. */
export interface ApproverLookup {
  readonly users: Pick<UserStore, 'findLogin'>;
  readonly provider: Pick<ScmProvider, 'findTeam'> | undefined;
  /** The caller's provider token, to look teams up as they see them. */
  readonly token: ScmToken;
}

/**
 * Approvers by name as ids: logins of svc accounts (people must have logged in once), teams as the
 * provider knows them now. A name that resolves to nothing is an error naming it, never dropped.
 */
export async function resolveApprovers(
  input: z.infer<typeof ApproversInput>,
  lookup: ApproverLookup,
): Promise<Approvers> {
  const users: number[] = [];
  for (const login of input.users) {
    const user = await lookup.users.findLogin(login);
    if (user === undefined || !user.active)
      throw new InvalidInputError(
        `approvers.users: no active svc account named ${login}; they must log in to svc once first`,
      );
    users.push(user.id);
  }
  const teams: TeamRef[] = [];
  for (const name of input.teams) {
    const [org = '', slug = ''] = name.split('/');
    const findTeam = lookup.provider?.findTeam?.bind(lookup.provider);
    if (findTeam === undefined)
      throw new InvalidInputError(
        `approvers.teams: svc does not read this git provider's teams; name approvers as users instead`,
      );
    try {
      teams.push(await findTeam(lookup.token, org, slug));
    } catch (error) {
      if (error instanceof SvcError && (error.code === 'NOT_FOUND' || error.code === 'FORBIDDEN'))
        throw new InvalidInputError(`approvers.teams: ${name} is not a team you can see at the git provider`);
      throw error;
    }
  }
  return { users: [...new Set(users)], teams };
}

/** Approvals that named approvers could never give are refused when the environment is saved. */
export function checkReachable(environment: Pick<NewEnvironment, 'approvers' | 'required'>): void {
  const { users, teams } = environment.approvers;
  if (teams.length === 0 && users.length > 0 && users.length < environment.required)
    throw new InvalidInputError(
      `required_approvals: ${environment.required} approvals by different people, but only ${users.length} approvers are named`,
    );
}

/** The environment as the API shows it: approvers by their names of today. */
export async function environmentJson(
  environment: Environment,
  users: Pick<UserStore, 'find'>,
): Promise<Record<string, unknown>> {
  const logins: string[] = [];
  for (const id of environment.approvers.users) {
    const user = await users.find(id);
    if (user !== undefined) logins.push(user.login);
  }
  return {
    id: environment.id,
    name: environment.name,
    approvers: {
      users: logins,
      teams: environment.approvers.teams.map((team) => `${team.org}/${team.slug}`),
    },
    required_approvals: environment.required,
    branches: environment.branches,
    timeout: environment.timeout,
    created: Math.floor(environment.created / 1000),
    updated: Math.floor(environment.updated / 1000),
  };
}
