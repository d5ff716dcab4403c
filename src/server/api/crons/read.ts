import { z } from 'zod';
import type { Cron, CronStore } from '../../../core/cron.js';
import { NotFoundError } from '../../../core/errors.js';
import { cronJson } from '../json/cron.js';
import { CronParams, RepoParams } from '../params.js';
import { REPO_WRITE, route, type ApiRoute } from '../route.js';
import { cronSchema } from '../schemas.js';

/** The repository's cron job of that name; NOT_FOUND otherwise. */
export async function findCron(
  crons: Pick<CronStore, 'findName'>,
  repoId: number,
  name: string,
): Promise<Cron> {
  const cron = await crons.findName(repoId, name);
  if (cron === undefined) throw new NotFoundError(`cron job ${name}`);
  return cron;
}

/**
 * GET /api/repos/{owner}/{name}/cron and GET …/cron/{cron}: a repository's cron jobs, by name. Writers
 * only, as in Drone: a job says which branches are built when.
 */
export function readCronRoutes(deps: { readonly crons: Pick<CronStore, 'list' | 'findName'> }): ApiRoute[] {
  return [
    route({
      method: 'GET',
      path: '/api/repos/:owner/:name/cron',
      access: REPO_WRITE,
      tag: 'cron',
      summary: 'The repository’s cron jobs, by name',
      params: RepoParams,
      response: { schema: z.array(cronSchema), description: 'the cron jobs' },
      async handler({ repo }) {
        return (await deps.crons.list(repo.id)).map(cronJson);
      },
    }),
    route({
      method: 'GET',
      path: '/api/repos/:owner/:name/cron/:cron',
      access: REPO_WRITE,
      tag: 'cron',
      summary: 'One cron job',
      params: CronParams,
      response: { schema: cronSchema, description: 'the cron job' },
      async handler({ repo, params }) {
        return cronJson(await findCron(deps.crons, repo.id, params.cron));
      },
    }),
  ];
}
