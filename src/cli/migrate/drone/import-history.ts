import type { RestoredStage } from '../../../core/build-history.js';
import type { Repo } from '../../../core/repo.js';
import type { Step } from '../../../core/step.js';
import type { ImportContext } from './context.js';
import type { DroneRow } from './database.js';
import { logLines, restoredBuild, restoredStage } from './history-rows.js';
import { continueCounter } from './import-repos.js';
import { bytes, int } from './values.js';

/** Builds read from Drone at a time: a long history never sits in memory whole. */
const PAGE = 200;

/**
 * The builds of every repository brought across, oldest first, with their stages, steps and logs,
 * under their own numbers. A build svc already has under its number is left as it is (the same
 * commit and creation time: brought across before), or skipped (svc's own build of that number).
 */
export async function importHistory(ctx: ImportContext): Promise<void> {
  for (const [droneRepo, repo] of ctx.repos) {
    const before = { ...ctx.report.counts('builds') };
    let last = 0;
    let newest = 0;
    for (;;) {
      const page = await ctx.drone.select(
        'select * from builds where build_repo_id = ? and build_number > ? order by build_number limit ?',
        [droneRepo, last, PAGE],
      );
      for (const row of page) {
        last = int(row, 'build_number');
        if (await importBuild(ctx, repo, row)) newest = last;
      }
      if (page.length < PAGE) break;
    }
    await continueCounter(ctx, (await ctx.svc.repos.find(repo.id)) ?? repo, newest);
    const after = ctx.report.counts('builds');
    ctx.progress(
      `builds of ${repo.slug}: ${after.imported - before.imported} imported, ${after.present - before.present} already present, ${after.skipped - before.skipped} skipped`,
    );
  }
  ctx.progress(ctx.report.line('builds'));
  ctx.progress(ctx.report.line('logs'));
}

/** Brings one build across; true when svc has it afterwards. */
async function importBuild(ctx: ImportContext, repo: Repo, row: DroneRow): Promise<boolean> {
  const number = int(row, 'build_number');
  const item = `${repo.slug}#${number}`;
  const build = restoredBuild(repo.id, row);
  if (typeof build === 'string') {
    ctx.report.skipped('builds', item, build);
    return false;
  }
  const existing = await ctx.svc.builds.findNumber(repo.id, number);
  if (existing !== undefined) {
    if (existing.after === build.after && existing.created === build.created) {
      ctx.report.present('builds');
      return true;
    }
    ctx.report.skipped('builds', item, `svc has its own build #${number} of ${repo.slug}`);
    return false;
  }
  const stages = await droneStages(ctx, int(row, 'build_id'));
  const restored = await ctx.svc.history.restore(
    build,
    stages.map((stage) => stage.restored),
  );
  try {
    await importLogs(ctx, item, stages, restored.steps);
  } catch (error) {
    // A build without the logs it had would be taken as brought across by the next run.
    await ctx.svc.builds.delete(restored.build.id);
    throw error;
  }
  ctx.report.imported('builds');
  return true;
}

/** A stage as svc restores it, and the Drone ids of its steps (their logs' keys), in the same order. */
interface DroneStage {
  readonly restored: RestoredStage;
  readonly droneStepIds: readonly number[];
}

async function droneStages(ctx: ImportContext, buildId: number): Promise<DroneStage[]> {
  const stages = await ctx.drone.select(
    'select * from stages where stage_build_id = ? order by stage_number',
    [buildId],
  );
  const restored: DroneStage[] = [];
  for (const stage of stages) {
    const steps = await ctx.drone.select('select * from steps where step_stage_id = ? order by step_number', [
      int(stage, 'stage_id'),
    ]);
    restored.push({
      restored: restoredStage(stage, steps),
      droneStepIds: steps.map((step) => int(step, 'step_id')),
    });
  }
  return restored;
}

/** Each step's log, when Drone's database has it (Drone may have kept logs in S3 or Azure instead). */
async function importLogs(
  ctx: ImportContext,
  item: string,
  stages: readonly DroneStage[],
  steps: readonly Step[][],
): Promise<void> {
  let missing = 0;
  for (const [index, stage] of stages.entries()) {
    for (const [position, step] of (steps[index] ?? []).entries()) {
      const droneId = stage.droneStepIds[position];
      const [row] = await ctx.drone.select('select log_data from logs where log_id = ?', [droneId]);
      if (row === undefined) {
        missing += 1;
        continue;
      }
      const lines = logLines(bytes(row, 'log_data'));
      if (lines === undefined) {
        ctx.report.skipped(
          'logs',
          `${item} ${step.name}`,
          'Drone’s log is not the JSON list of lines Drone writes',
        );
        continue;
      }
      await ctx.svc.logs.create(step.id, lines);
      ctx.report.imported('logs');
    }
  }
  if (missing > 0) {
    ctx.report.skipped(
      'logs',
      item,
      `${missing} of its steps ${missing === 1 ? 'has' : 'have'} no log in Drone’s database (kept in S3 or Azure Blob storage, or never finished)`,
    );
  }
}
