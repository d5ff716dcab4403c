import { z } from 'zod';
import { artifactEntryJson, artifactJson, placesOf } from '../json/artifact.js';
import { findBuild } from '../lookup.js';
import { BuildParams } from '../params.js';
import { REPO_READ, route, type ApiRoute } from '../route.js';
import { artifactSchema, artifactWithEntriesSchema } from '../schemas.js';
import {
  ARTIFACTS_PATH,
  ArtifactParams,
  findArtifact,
  readerOf,
  TAG,
  type ArtifactRouteDeps,
} from './shared.js';

/** GET …/builds/{number}/artifacts: the build's artifacts, by stage then name. */
export function listArtifactsRoute(deps: ArtifactRouteDeps): ApiRoute {
  return route({
    method: 'GET',
    path: ARTIFACTS_PATH,
    access: REPO_READ,
    tag: TAG,
    summary: 'The build’s artifacts, by stage then name',
    params: BuildParams,
    response: { schema: z.array(artifactSchema), description: 'the artifacts' },
    async handler({ repo, params }) {
      const reader = readerOf(deps);
      const build = await findBuild(deps.builds, repo.id, params.number);
      const artifacts = await reader.list(build.id);
      if (artifacts.length === 0) return [];
      const places = placesOf(await deps.stages.listWithSteps(build.id));
      return artifacts.map((artifact) => artifactJson(artifact, places));
    },
  });
}

/** GET …/builds/{number}/artifacts/{id}: the artifact with its files, folders and links. */
export function findArtifactRoute(deps: ArtifactRouteDeps): ApiRoute {
  return route({
    method: 'GET',
    path: `${ARTIFACTS_PATH}/:id`,
    access: REPO_READ,
    tag: TAG,
    summary: 'One artifact of the build, with its files (`entries`)',
    params: ArtifactParams,
    response: { schema: artifactWithEntriesSchema, description: 'the artifact with `entries`' },
    async handler({ repo, params }) {
      const { build, artifact, reader } = await findArtifact(deps, repo, params);
      const [places, entries] = await Promise.all([
        deps.stages.listWithSteps(build.id).then(placesOf),
        reader.entries(artifact),
      ]);
      return { ...artifactJson(artifact, places), entries: entries.map(artifactEntryJson) };
    },
  });
}
