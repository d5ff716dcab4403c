import { BUILD_EVENTS, type BuildEvent } from '../../../core/build.js';
import type { RestoredBuild, RestoredStage } from '../../../core/build-history.js';
import type { LogLine } from '../../../core/log.js';
import { isDone, isStatus, type Status } from '../../../core/status.js';
import type { DroneRow } from './database.js';
import { bool, int, millis, stringList, stringMap, text } from './values.js';

/** Drone's build row as svc's restored build; a message instead when svc cannot take it. */
export function restoredBuild(repoId: number, row: DroneRow): RestoredBuild | string {
  const status = text(row, 'build_status');
  if (!isStatus(status)) return `its status "${status}" is not one svc knows`;
  if (!isDone(status)) return `it was ${status} in Drone: only finished builds are brought across`;
  const event = text(row, 'build_event');
  if (!(BUILD_EVENTS as readonly string[]).includes(event))
    return `its event "${event}" is not one svc knows`;
  return {
    repoId,
    number: int(row, 'build_number'),
    parent: int(row, 'build_parent'),
    status,
    error: text(row, 'build_error'),
    event: event as BuildEvent,
    action: text(row, 'build_action'),
    trigger: text(row, 'build_trigger'),
    link: text(row, 'build_link'),
    title: text(row, 'build_title'),
    message: text(row, 'build_message'),
    before: text(row, 'build_before'),
    after: text(row, 'build_after'),
    ref: text(row, 'build_ref'),
    sourceRepo: text(row, 'build_source_repo'),
    source: text(row, 'build_source'),
    target: text(row, 'build_target'),
    authorLogin: text(row, 'build_author'),
    authorName: text(row, 'build_author_name'),
    authorEmail: text(row, 'build_author_email'),
    authorAvatar: text(row, 'build_author_avatar'),
    sender: text(row, 'build_sender'),
    params: stringMap(row, 'build_params'),
    cron: text(row, 'build_cron'),
    deployTo: text(row, 'build_deploy'),
    deployId: int(row, 'build_deploy_id'),
    debug: bool(row, 'build_debug'),
    // Drone does not keep the pipeline file a build ran; svc reads it again for a restart.
    config: '',
    started: millis(row, 'build_started'),
    finished: millis(row, 'build_finished'),
    created: millis(row, 'build_created'),
    updated: millis(row, 'build_updated'),
  };
}

/** A stage row with its step rows as svc's restored stage. */
export function restoredStage(stage: DroneRow, steps: readonly DroneRow[]): RestoredStage {
  return {
    stage: {
      number: int(stage, 'stage_number'),
      name: text(stage, 'stage_name'),
      kind: text(stage, 'stage_kind'),
      type: text(stage, 'stage_type'),
      status: finished(text(stage, 'stage_status'), int(stage, 'stage_started')),
      error: text(stage, 'stage_error'),
      errIgnore: bool(stage, 'stage_errignore'),
      exitCode: int(stage, 'stage_exit_code'),
      machine: text(stage, 'stage_machine'),
      os: text(stage, 'stage_os'),
      arch: text(stage, 'stage_arch'),
      variant: text(stage, 'stage_variant'),
      kernel: text(stage, 'stage_kernel'),
      limit: int(stage, 'stage_limit'),
      started: millis(stage, 'stage_started'),
      stopped: millis(stage, 'stage_stopped'),
      heartbeat: 0,
      created: millis(stage, 'stage_created'),
      updated: millis(stage, 'stage_updated'),
      onSuccess: bool(stage, 'stage_on_success'),
      onFailure: bool(stage, 'stage_on_failure'),
      dependsOn: stringList(stage, 'stage_depends_on'),
      labels: stringMap(stage, 'stage_labels'),
    },
    steps: steps.map((step) => ({
      number: int(step, 'step_number'),
      name: text(step, 'step_name'),
      status: finished(text(step, 'step_status'), int(step, 'step_started')),
      error: text(step, 'step_error'),
      errIgnore: bool(step, 'step_errignore'),
      exitCode: int(step, 'step_exit_code'),
      image: text(step, 'step_image'),
      detached: bool(step, 'step_detached'),
      dependsOn: stringList(step, 'step_depends_on'),
      started: millis(step, 'step_started'),
      stopped: millis(step, 'step_stopped'),
    })),
  };
}

/**
 * The status of a stage or step of a finished build. Drone can leave one pending or running when
 * its build ended otherwise (a runner lost, a build cancelled before it started): it never ran to
 * its end, so it is `skipped` when it never started, `killed` when it did.
 */
function finished(status: string, started: number): Status {
  if (isStatus(status) && isDone(status)) return status;
  return started === 0 ? 'skipped' : 'killed';
}

/** A step's log as Drone stores it (a JSON array of `{pos, out, time}`); undefined when it is not that. */
export function logLines(data: Buffer): LogLine[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data.toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed)) return undefined;
  const lines: LogLine[] = [];
  for (const item of parsed as unknown[]) {
    if (typeof item !== 'object' || item === null) return undefined;
    const { pos, out, time } = item as Record<string, unknown>;
    if (typeof out !== 'string') return undefined;
    lines.push({
      pos: typeof pos === 'number' ? pos : lines.length,
      out,
      time: typeof time === 'number' ? time : 0,
    });
  }
  return lines;
}
