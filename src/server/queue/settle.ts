import type { Logger } from 'pino';
import type { Build } from '../../core/build.js';
import { StaleVersionError } from '../../core/errors.js';
import type { BuildListener, QueueSignal } from '../../core/events.js';
import type { Stage } from '../../core/stage.js';
import { isDone } from '../../core/status.js';
import type { Store } from '../../core/store.js';
import type { BuildWatches } from './build-watches.js';
import { notifyListener } from './notify.js';
import { buildHasStarted, dependentChanges, finalBuildStatus } from './transitions.js';

/** What settling a build touches. */
export interface SettleDeps {
  store: Pick<Store, 'repos' | 'builds' | 'stages'>;
  listener: BuildListener;
  queue: QueueSignal;
  watches: BuildWatches;
  logger: Logger;
  now: () => number;
}

/** Optimistic writes that keep losing are given up after this many tries (someone else settles). */
const ATTEMPTS = 8;

/**
 * Brings a build in line with its stages after one of them changed status: stages waiting on
 * dependencies become pending or skipped (repeatedly, as skips complete other dependencies), the
 * build becomes `running` once a stage runs or ran, and takes its final status once every stage is
 * done — unless the build is already done (cancelled): a done build is never overwritten. Every
 * write is optimistic-locked; a stale one re-reads and tries again. Then runners waiting for work
 * are woken (when stages were queued), watches of the build look again, and the listener hears of
 * the build with all its stages — when `stageChanged` or settling changed anything.
 */
export async function settleBuild(
  deps: SettleDeps,
  buildId: number,
  { stageChanged }: { stageChanged: boolean },
): Promise<void> {
  const dependents = await settleDependents(deps, buildId);
  if (dependents.queued) deps.queue.wake();
  const { build, changed } = await settleStatus(deps, buildId);
  deps.watches.notify(buildId);
  if (build === undefined || !(stageChanged || dependents.changed || changed)) return;
  const repo = await deps.store.repos.find(build.repoId);
  if (repo === undefined) return;
  const stages = await deps.store.stages.list(buildId);
  await notifyListener(deps.listener, { repo, build, stages }, deps.logger);
}

async function settleDependents(
  deps: SettleDeps,
  buildId: number,
): Promise<{ changed: boolean; queued: boolean }> {
  let changed = false;
  let queued = false;
  for (let round = 0; round < ATTEMPTS; round++) {
    const changes = dependentChanges(await deps.store.stages.list(buildId));
    if (changes.length === 0) break;
    for (const { stage, status } of changes) {
      const now = deps.now();
      const next: Stage =
        status === 'skipped' ? { ...stage, status, started: now, stopped: now } : { ...stage, status };
      if (await tryWrite(() => deps.store.stages.update(next))) {
        changed = true;
        queued ||= status === 'pending';
      }
    }
  }
  return { changed, queued };
}

async function settleStatus(
  deps: SettleDeps,
  buildId: number,
): Promise<{ build: Build | undefined; changed: boolean }> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const build = await deps.store.builds.find(buildId);
    if (build === undefined || isDone(build.status)) return { build, changed: false };
    const stages = await deps.store.stages.list(buildId);
    const final = finalBuildStatus(stages);
    const now = deps.now();
    let next: Build | undefined;
    if (final !== undefined) {
      next = { ...build, status: final, started: build.started || now, finished: now };
    } else if (build.status === 'pending' && buildHasStarted(stages)) {
      next = { ...build, status: 'running', started: now };
    }
    if (next === undefined) return { build, changed: false };
    try {
      return { build: await deps.store.builds.update(next), changed: true };
    } catch (error) {
      if (!(error instanceof StaleVersionError)) throw error;
    }
  }
  deps.logger.warn(
    { build: buildId },
    'build status kept changing under this server; left to the next change',
  );
  return { build: await deps.store.builds.find(buildId), changed: false };
}

/** Runs an optimistic write; false when someone else wrote first (the caller re-reads). */
async function tryWrite(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (error) {
    if (error instanceof StaleVersionError) return false;
    throw error;
  }
}
