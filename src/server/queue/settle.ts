import type { Logger } from 'pino';
import type { Build, BuildStore } from '../../core/build.js';
import { StaleVersionError } from '../../core/errors.js';
import type { BuildListener, QueueSignal } from '../../core/events.js';
import type { RepoStore } from '../../core/repo.js';
import type { Stage, StageStore } from '../../core/stage.js';
import { isDone } from '../../core/status.js';
import type { BuildWatches } from './build-watches.js';
import type { CoalescingLock, SharedRun } from './coalescing-lock.js';
import { notifyListener } from './notify.js';
import { buildHasStarted, dependentChanges, finalBuildStatus } from './transitions.js';

/** What settling a build touches. */
export interface SettleDeps {
  store: {
    repos: Pick<RepoStore, 'find'>;
    builds: Pick<BuildStore, 'find' | 'update'>;
    stages: Pick<StageStore, 'list' | 'update'>;
  };
  listener: BuildListener;
  queue: QueueSignal;
  watches: BuildWatches;
  logger: Logger;
  now: () => number;
  /**
   * When given, the database part of settling (dependents, build status) runs one build at a time
   * on this server: stages of a build that change together would otherwise race for the build's
   * optimistic lock, and the losers read and write again. Settlings of a build asked for while one
   * waits for its turn are done by that one (it reads the build after their stage changes), and
   * one of their callers tells the listener, outside of the lock.
   */
  settling?: CoalescingLock;
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
  const settle = async (stageChangedBefore: boolean) => {
    const dependents = await settleDependents(deps, buildId);
    const status = await settleStatus(deps, buildId, dependents.stages);
    return { dependents, status, stageChanged: stageChangedBefore };
  };
  const run: SharedRun<Awaited<ReturnType<typeof settle>>> = deps.settling
    ? await deps.settling.run(String(buildId), stageChanged, settle)
    : { value: await settle(stageChanged), claim: () => true };
  // Of the callers whose settling one run did, one tells (the same build and stages for all).
  if (!run.claim()) return;
  const { dependents, status } = run.value;
  if (dependents.queued) deps.queue.wake();
  const { build, stages, changed } = status;
  deps.watches.notify(buildId);
  if (build === undefined || !(run.value.stageChanged || dependents.changed || changed)) return;
  const repo = await deps.store.repos.find(build.repoId);
  if (repo === undefined) return;
  await notifyListener(
    deps.listener,
    { repo, build, stages: stages ?? (await deps.store.stages.list(buildId)) },
    deps.logger,
  );
}

/**
 * Queues or skips the stages whose dependencies are settled; `stages` is the build's stages as last
 * read when that read found nothing more to do (undefined when it gave up first).
 */
async function settleDependents(
  deps: SettleDeps,
  buildId: number,
): Promise<{ changed: boolean; queued: boolean; stages: Stage[] | undefined }> {
  let changed = false;
  let queued = false;
  for (let round = 0; round < ATTEMPTS; round++) {
    const stages = await deps.store.stages.list(buildId);
    const changes = dependentChanges(stages);
    if (changes.length === 0) return { changed, queued, stages };
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
  return { changed, queued, stages: undefined };
}

/**
 * Gives the build the status its stages make: running once one runs or ran, its final status once
 * all are done. `known` is the build's stages as just read (read again after a lost write). Returns
 * the stages it decided on, for the listener (undefined when the build was already done).
 */
async function settleStatus(
  deps: SettleDeps,
  buildId: number,
  known: Stage[] | undefined,
): Promise<{ build: Build | undefined; stages: Stage[] | undefined; changed: boolean }> {
  let fresh = known;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const build = await deps.store.builds.find(buildId);
    if (build === undefined || isDone(build.status)) return { build, stages: fresh, changed: false };
    const stages = fresh ?? (await deps.store.stages.list(buildId));
    fresh = undefined;
    const final = finalBuildStatus(stages);
    const now = deps.now();
    let next: Build | undefined;
    if (final !== undefined) {
      next = { ...build, status: final, started: build.started || now, finished: now };
    } else if (build.status === 'pending' && buildHasStarted(stages)) {
      next = { ...build, status: 'running', started: now };
    }
    if (next === undefined) return { build, stages, changed: false };
    try {
      return { build: await deps.store.builds.update(next), stages, changed: true };
    } catch (error) {
      if (!(error instanceof StaleVersionError)) throw error;
    }
  }
  deps.logger.warn(
    { build: buildId },
    'build status kept changing under this server; left to the next change',
  );
  return { build: await deps.store.builds.find(buildId), stages: undefined, changed: false };
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
