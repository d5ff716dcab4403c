import type { z } from 'zod';
import type { Artifact } from '../../../core/artifact.js';
import type { Build, BuildStore } from '../../../core/build.js';
import { SvcError } from '../../../core/errors.js';
import type { Repo } from '../../../core/repo.js';
import type { StageStore } from '../../../core/stage.js';
import type { ArtifactService } from '../../artifacts/service.js';
import { findBuild } from '../lookup.js';
import { BuildParams, ordinal } from '../params.js';

/** What the artifact routes read of the server's ArtifactService. */
export type ArtifactReader = Pick<ArtifactService, 'list' | 'find' | 'entries' | 'open' | 'zip' | 'tarZst'>;

/** What the artifact routes need; `artifacts` is undefined on a server that keeps none. */
export interface ArtifactRouteDeps {
  readonly builds: Pick<BuildStore, 'findNumber'>;
  readonly stages: Pick<StageStore, 'listWithSteps'>;
  readonly artifacts: ArtifactReader | undefined;
}

/** `/repos/{owner}/{name}/builds/{number}/artifacts/{id}`. */
export const ArtifactParams = BuildParams.extend({ id: ordinal });

export const TAG = 'artifacts';
export const ARTIFACTS_PATH = '/api/repos/:owner/:name/builds/:number/artifacts';

/** The service, or NOT_FOUND saying that this server keeps no artifacts. */
export function readerOf(deps: ArtifactRouteDeps): ArtifactReader {
  if (deps.artifacts === undefined) throw new SvcError('NOT_FOUND', 'this server keeps no artifacts');
  return deps.artifacts;
}

/** The path's build and its artifact `id`; NOT_FOUND for either, and for an artifact of another build. */
export async function findArtifact(
  deps: ArtifactRouteDeps,
  repo: Repo,
  params: z.output<typeof ArtifactParams>,
): Promise<{ build: Build; artifact: Artifact; reader: ArtifactReader }> {
  const reader = readerOf(deps);
  const build = await findBuild(deps.builds, repo.id, params.number);
  return { build, artifact: await reader.find(build.id, params.id), reader };
}
