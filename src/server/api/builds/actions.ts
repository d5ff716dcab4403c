import { z } from 'zod';
import type { BuildStore } from '../../../core/build.js';
import type { ApprovalStore } from '../../../core/environment.js';
import type { StageStore } from '../../../core/stage.js';
import type { ApprovalDesk } from '../../queue/approval-desk.js';
import type { BuildActions } from '../../queue/build-actions.js';
import { approvalSchema, DecisionBody } from '../environments/schemas.js';
import { buildJson } from '../json/build.js';
import { findBuild } from '../lookup.js';
import { BuildParams, ordinal } from '../params.js';
import { REPO_READ, REPO_WRITE, route, type ApiRoute } from '../route.js';
import { buildSchema } from '../schemas.js';

/** What acting on one build needs. */
export interface BuildActionDeps {
  readonly builds: Pick<BuildStore, 'findNumber'>;
  readonly stages: Pick<StageStore, 'listWithSteps'>;
  readonly actions: Pick<BuildActions, 'cancel'>;
  /** Records approvals and declines and releases or ends the stage. */
  readonly desk: Pick<ApprovalDesk, 'approve' | 'decline'>;
  readonly approvals: Pick<ApprovalStore, 'list'>;
}

const StageActionParams = BuildParams.extend({ stage: ordinal });

/**
 * Drone's build actions, for callers with write access: cancel a build (DELETE
 * …/builds/{number}: running steps are killed and their containers removed by the runners, the
 * build ends `killed`), approve or decline a stage waiting for approval (…/approve/{stage},
 * …/decline/{stage}; svc takes an optional `{"comment": …}` and records who decided, and when).
 * Each answers the build with its stages as they now are. svc adds the list of those decisions,
 * `GET …/builds/{number}/approvals`, for whoever may read the build.
 */
export function buildActionRoutes(deps: BuildActionDeps): ApiRoute[] {
  const answer = async (buildId: number, build: Parameters<typeof buildJson>[0]) =>
    buildJson(build, await deps.stages.listWithSteps(buildId));
  const common = { access: REPO_WRITE, tag: 'builds' } as const;
  return [
    route({
      ...common,
      method: 'DELETE',
      path: '/api/repos/:owner/:name/builds/:number',
      summary: 'Cancels the build: its runners stop it, it ends killed',
      params: BuildParams,
      response: { schema: buildSchema, description: 'the cancelled build with its stages' },
      async handler({ repo, params, principal }) {
        const build = await findBuild(deps.builds, repo.id, params.number);
        const cancelled = await deps.actions.cancel(build, principal.user.login);
        return answer(build.id, cancelled);
      },
    }),
    route({
      ...common,
      method: 'POST',
      path: '/api/repos/:owner/:name/builds/:number/approve/:stage',
      summary:
        'Approves a stage that waits for approval: it is queued once the approvals its environment needs are given',
      params: StageActionParams,
      body: DecisionBody,
      response: { schema: buildSchema, description: 'the build with its stages' },
      async handler({ repo, params, principal, body }) {
        const build = await findBuild(deps.builds, repo.id, params.number);
        return answer(
          build.id,
          await deps.desk.approve(repo, build, params.stage, principal.user, body.comment),
        );
      },
    }),
    route({
      ...common,
      method: 'POST',
      path: '/api/repos/:owner/:name/builds/:number/decline/:stage',
      summary: 'Declines a stage that waits for approval: the build ends declined',
      params: StageActionParams,
      body: DecisionBody,
      response: { schema: buildSchema, description: 'the build with its stages' },
      async handler({ repo, params, principal, body }) {
        const build = await findBuild(deps.builds, repo.id, params.number);
        return answer(
          build.id,
          await deps.desk.decline(repo, build, params.stage, principal.user, body.comment),
        );
      },
    }),
    route({
      access: REPO_READ,
      tag: 'builds',
      method: 'GET',
      path: '/api/repos/:owner/:name/builds/:number/approvals',
      summary: 'Who approved or declined the build’s stages, when, and why, in order',
      params: BuildParams,
      response: { schema: z.array(approvalSchema), description: 'the decisions' },
      async handler({ repo, params }) {
        const build = await findBuild(deps.builds, repo.id, params.number);
        return (await deps.approvals.list(build.id)).map((approval) => ({
          id: approval.id,
          stage: approval.stage,
          login: approval.login,
          decision: approval.decision,
          comment: approval.comment,
          created: Math.floor(approval.created / 1000),
        }));
      },
    }),
  ];
}
