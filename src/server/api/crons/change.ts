import { z } from 'zod';
import type { Cron, CronStore } from '../../../core/cron.js';
import { StaleVersionError } from '../../../core/errors.js';
import { nextRun } from '../../cron/expr.js';
import { cronJson } from '../json/cron.js';
import { CronParams, RepoParams } from '../params.js';
import { REPO_WRITE, route, type ApiRoute } from '../route.js';
import { cronSchema } from '../schemas.js';
import { findCron } from './read.js';

/** What changing cron jobs needs. */
export interface ChangeCronDeps {
  readonly crons: Pick<CronStore, 'findName' | 'find' | 'create' | 'update' | 'delete'>;
  readonly now?: () => number;
}

/** Job names are path segments: letters, digits, `_`, `-`, `.`. */
const name = z
  .string()
  .max(100)
  .regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, "_", "-" and "." only');
const branch = z.string().max(250);
const target = z.string().max(250);

/** Drone's cron job body; other fields of Drone's Cron (id, next, …) are ignored, as Drone does. */
const CronCreate = z.object({
  name,
  expr: z.string().max(100),
  branch: branch.optional(),
  target: target.optional(),
  disabled: z.boolean().optional(),
});

/** Every field optional; a new `expr`, or enabling a disabled job, schedules the next run from now. */
const CronPatch = z.object({
  name: name.optional(),
  expr: z.string().max(100).optional(),
  branch: branch.optional(),
  target: target.optional(),
  disabled: z.boolean().optional(),
});

/** Drone's `event` of a cron job: stored and shown, while its builds have the event `cron`. */
const CRON_EVENT = 'push';

/**
 * POST /api/repos/{owner}/{name}/cron (create), PATCH and DELETE …/cron/{cron}. The expression is
 * checked and the next run computed on every write, so a job in the store always has a valid
 * schedule; names are unique per repository (409).
 */
export function changeCronRoutes(deps: ChangeCronDeps): ApiRoute[] {
  const now = deps.now ?? Date.now;
  return [
    route({
      method: 'POST',
      path: '/api/repos/:owner/:name/cron',
      access: REPO_WRITE,
      tag: 'cron',
      summary: 'Creates a cron job',
      params: RepoParams,
      body: CronCreate,
      response: { schema: cronSchema, description: 'the cron job, with its next run' },
      async handler({ repo, body }) {
        const cron = await deps.crons.create({
          repoId: repo.id,
          name: body.name,
          expr: body.expr.trim(),
          next: nextRun(body.expr, now()),
          prev: 0,
          event: CRON_EVENT,
          branch: body.branch || repo.defaultBranch,
          target: body.target ?? '',
          disabled: body.disabled ?? false,
        });
        return cronJson(cron);
      },
    }),
    route({
      method: 'PATCH',
      path: '/api/repos/:owner/:name/cron/:cron',
      access: REPO_WRITE,
      tag: 'cron',
      summary: 'Changes a cron job',
      params: CronParams,
      body: CronPatch,
      response: { schema: cronSchema, description: 'the cron job as changed' },
      async handler({ repo, params, body }) {
        if (body.expr !== undefined) nextRun(body.expr, now()); // a bad expression is a 400 before any read
        const found = await findCron(deps.crons, repo.id, params.cron);
        const change = (cron: Cron): Cron => applyPatch(cron, body, now(), repo.defaultBranch);
        try {
          return cronJson(await deps.crons.update(change(found)));
        } catch (error) {
          // The scheduler advances jobs concurrently: apply the patch once more to the fresh row.
          if (!(error instanceof StaleVersionError)) throw error;
          const fresh = await deps.crons.find(found.id);
          if (fresh === undefined) throw error;
          return cronJson(await deps.crons.update(change(fresh)));
        }
      },
    }),
    route({
      method: 'DELETE',
      path: '/api/repos/:owner/:name/cron/:cron',
      access: REPO_WRITE,
      tag: 'cron',
      summary: 'Deletes a cron job',
      params: CronParams,
      response: { status: 204, description: 'deleted' },
      async handler({ repo, params, reply }) {
        const cron = await findCron(deps.crons, repo.id, params.cron);
        await deps.crons.delete(cron.id);
        return reply.code(204).send();
      },
    }),
  ];
}

function applyPatch(cron: Cron, patch: z.infer<typeof CronPatch>, now: number, defaultBranch: string): Cron {
  const expr = patch.expr?.trim() ?? cron.expr;
  const disabled = patch.disabled ?? cron.disabled;
  const reschedule = expr !== cron.expr || (cron.disabled && !disabled);
  return {
    ...cron,
    name: patch.name ?? cron.name,
    expr,
    next: reschedule ? nextRun(expr, now) : cron.next,
    branch: patch.branch === undefined ? cron.branch : patch.branch || defaultBranch,
    target: patch.target ?? cron.target,
    disabled,
  };
}
