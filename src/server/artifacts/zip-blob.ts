import type { Artifact } from '../../core/artifact.js';
import type { BlobStore } from '../../core/blob.js';
import { NotFoundError } from '../../core/errors.js';
import type { ZipBlob } from '../../platform/zip/zip-blob.js';

/** An artifact's stored zip, read by ranges from the blob store. */
export function artifactZip(
  blobs: Pick<BlobStore, 'get'>,
  artifact: Pick<Artifact, 'blob' | 'zipSize' | 'name'>,
): ZipBlob {
  return {
    size: artifact.zipSize,
    range: async (start, end) => {
      const stream = await blobs.get(artifact.blob, { start, end });
      if (stream === undefined) throw new NotFoundError(`the stored files of artifact "${artifact.name}"`);
      return stream;
    },
  };
}
