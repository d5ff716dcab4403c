import type { FastifyRequest } from 'fastify';
import type { Build } from '../../../core/build.js';
import { ConflictError, ForbiddenError, NotFoundError } from '../../../core/errors.js';
import type { Repo } from '../../../core/repo.js';
import type { Stage } from '../../../core/stage.js';
import type { Store } from '../../../core/store.js';
import { checkHolder } from '../../queue/holder-check.js';
import { runnerOf } from '../holder.js';
import { idParam } from '../parse.js';

/**
 * The stage of the route, its build and repository, when the request's runner holds the stage and
 * it runs (caches and artifacts go only to and from a running stage's holder).
 */
export async function runningStage(
  request: FastifyRequest,
  deps: { store: Pick<Store, 'stages' | 'builds' | 'repos'> },
): Promise<{ stage: Stage; build: Build; repo: Repo }> {
  const id = idParam(request);
  const stage = await deps.store.stages.find(id);
  if (stage === undefined) throw new NotFoundError(`stage ${id}`);
  if (stage.machine === '')
    throw new ConflictError(`stage ${id} must be accepted before its caches or artifacts are used`);
  // Caches and artifacts are svc's: its runners name themselves, and only the holder is served.
  const runner = runnerOf(request);
  if (runner === undefined)
    throw new ForbiddenError('caches and artifacts are for runners that name themselves (X-SVC-Runner)');
  checkHolder(runner, stage);
  if (stage.status !== 'running') throw new ConflictError(`stage ${id} is ${stage.status}, not running`);
  const build = await deps.store.builds.find(stage.buildId);
  if (build === undefined) throw new NotFoundError(`build ${stage.buildId}`);
  const repo = await deps.store.repos.find(build.repoId);
  if (repo === undefined) throw new NotFoundError(`repository ${build.repoId}`);
  return { stage, build, repo };
}
