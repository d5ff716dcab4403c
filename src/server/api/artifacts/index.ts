import type { ApiRoute } from '../route.js';
import { downloadArtifactRoute } from './download.js';
import { artifactFileRoute } from './files.js';
import { findArtifactRoute, listArtifactsRoute } from './list.js';
import type { ArtifactRouteDeps } from './shared.js';

export type { ArtifactReader, ArtifactRouteDeps } from './shared.js';

/**
 * A build's artifacts (docs/artifacts.md): listed, one with its files, downloaded whole, one file
 * at a time. They follow the repository's read rule, as the build and its logs do: those of a
 * public repository are for whoever may read it. A server that keeps none answers 404.
 */
export function artifactRoutes(deps: ArtifactRouteDeps): ApiRoute[] {
  return [
    listArtifactsRoute(deps),
    findArtifactRoute(deps),
    downloadArtifactRoute(deps),
    artifactFileRoute(deps),
  ];
}
