import { InvalidInputError } from '../../../core/errors.js';
import { nextRun } from '../../../server/cron/expr.js';
import type { ImportContext } from './context.js';
import { bool, int, millis, text } from './values.js';

/**
 * Drone's cron jobs, with their next and previous runs. A job svc already has under that name is
 * left as it is; one whose expression svc's scheduler does not read is skipped with croner's reason.
 */
export async function importCrons(ctx: ImportContext): Promise<void> {
  for (const row of await ctx.drone.select('select * from cron order by cron_id')) {
    const droneRepo = int(row, 'cron_repo_id');
    const name = text(row, 'cron_name');
    const item = `${ctx.droneSlugs.get(droneRepo) ?? `of Drone repository ${droneRepo}`} ${name}`;
    const repo = ctx.repos.get(droneRepo);
    if (repo === undefined) {
      ctx.report.skipped('cron jobs', item, 'its repository was not brought across');
      continue;
    }
    if ((await ctx.svc.crons.findName(repo.id, name)) !== undefined) {
      ctx.report.present('cron jobs');
      continue;
    }
    const expr = text(row, 'cron_expr');
    let upcoming: number;
    try {
      upcoming = nextRun(expr, ctx.now());
    } catch (error) {
      if (!(error instanceof InvalidInputError)) throw error;
      ctx.report.skipped('cron jobs', item, error.message.replace(/^expr: /, ''));
      continue;
    }
    await ctx.svc.crons.create({
      repoId: repo.id,
      name,
      expr,
      // Drone's own next run, missed or not (Drone too runs a missed job once when it comes back).
      next: millis(row, 'cron_next') || upcoming,
      prev: millis(row, 'cron_prev'),
      event: text(row, 'cron_event') || 'push',
      branch: text(row, 'cron_branch'),
      target: text(row, 'cron_target'),
      disabled: bool(row, 'cron_disabled'),
    });
    ctx.report.imported('cron jobs');
  }
  ctx.progress(ctx.report.line('cron jobs'));
}
