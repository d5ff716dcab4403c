import { z } from 'zod';
import { REPO_READ, route, type ApiRoute } from '../route.js';
import { disposition } from './disposition.js';
import { ARTIFACTS_PATH, ArtifactParams, findArtifact, TAG, type ArtifactRouteDeps } from './shared.js';

const DownloadQuery = z.object({
  format: z
    .enum(['zip', 'tar.zst'])
    .default('zip')
    .describe('`zip` (default: the zip as stored) or `tar.zst` (a tar compressed with zstd)'),
});

/**
 * GET …/artifacts/{id}/download?format=zip|tar.zst: the whole artifact as a file to save,
 * `<repository>-<build>-<artifact>.zip` (or `.tar.zst`). The zip is sent as stored, with its
 * length; the tar is made from it as it is sent.
 */
export function downloadArtifactRoute(deps: ArtifactRouteDeps): ApiRoute {
  return route({
    method: 'GET',
    path: `${ARTIFACTS_PATH}/:id/download`,
    access: REPO_READ,
    tag: TAG,
    summary: 'The whole artifact, as a zip or a tar compressed with zstd',
    params: ArtifactParams,
    query: DownloadQuery,
    response: { contentType: 'application/zip', description: 'the zip (application/zstd for tar.zst)' },
    async handler({ repo, params, query, reply }) {
      const { build, artifact, reader } = await findArtifact(deps, repo, params);
      const name = `${repo.name}-${build.number}-${artifact.name}.${query.format}`;
      void reply.header('content-disposition', disposition('attachment', name));
      if (query.format === 'tar.zst') {
        void reply.type('application/zstd');
        return reader.tarZst([artifact]);
      }
      const body = await reader.zip(artifact);
      void reply.type('application/zip').header('content-length', artifact.zipSize);
      return body;
    },
  });
}
