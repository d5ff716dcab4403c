import { Readable } from 'node:stream';
import { z } from 'zod';
import { REPO_READ, route, type ApiRoute } from '../route.js';
import { disposition } from './disposition.js';
import { fileType, SNIFF_BYTES } from './file-type.js';
import { ARTIFACTS_PATH, ArtifactParams, findArtifact, TAG, type ArtifactRouteDeps } from './shared.js';

/** `…/artifacts/{id}/files/*`: the rest of the path is the file's, URL-decoded, `/`s and all. */
const FileParams = ArtifactParams.extend({
  '*': z.string().min(1).describe('the file’s path in the artifact, e.g. `dist/app.tar.gz`'),
});

/** An artifact's file is whatever a build wrote: it may run nothing, and load nothing, in svc's origin. */
const SANDBOX = "sandbox; default-src 'none'";

/**
 * GET …/artifacts/{id}/files/{path}: one file's bytes, read out of the zip by range. Text opens
 * as `text/plain` and PNG, JPEG, GIF and WebP images as themselves; everything else downloads
 * (file-type.ts says why). A symbolic link answers its target, as text; a folder is not found.
 */
export function artifactFileRoute(deps: ArtifactRouteDeps): ApiRoute {
  return route({
    method: 'GET',
    path: `${ARTIFACTS_PATH}/:id/files/*`,
    access: REPO_READ,
    tag: TAG,
    summary: 'One file of the artifact (text and images inline, anything else as a download)',
    params: FileParams,
    response: {
      contentType: 'application/octet-stream',
      description: 'the file; text/plain for text, image/png|jpeg|gif|webp for those images',
    },
    async handler({ repo, params, reply }) {
      const { artifact, reader } = await findArtifact(deps, repo, params);
      const path = params['*'];
      const { entry, body } = await reader.open(artifact, path);
      const { head, rest } = await peek(body, SNIFF_BYTES);
      const type = entry.isSymlink
        ? ({ inline: true, contentType: 'text/plain; charset=utf-8' } as const)
        : fileType(path, head);
      const base = path.slice(path.lastIndexOf('/') + 1);
      void reply
        .type(type.contentType)
        .header('content-length', entry.size)
        .header('content-disposition', disposition(type.inline ? 'inline' : 'attachment', base))
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', SANDBOX);
      return rest;
    },
  });
}

/** The first `bytes` of a stream (fewer when it is shorter), and a stream of all of it. */
async function peek(body: Readable, bytes: number): Promise<{ head: Buffer; rest: Readable }> {
  const iterator = body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const chunks: Buffer[] = [];
  let have = 0;
  let ended = false;
  while (have < bytes) {
    const next = await iterator.next();
    if (next.done === true) {
      ended = true;
      break;
    }
    chunks.push(next.value);
    have += next.value.length;
  }
  const head = Buffer.concat(chunks);
  async function* all(): AsyncGenerator<Buffer> {
    if (head.length > 0) yield head;
    if (ended) return;
    for (;;) {
      const next = await iterator.next();
      if (next.done === true) return;
      yield next.value;
    }
  }
  const rest = Readable.from(all(), { objectMode: false });
  // A client that goes away stops the read out of the blob store too.
  rest.once('close', () => body.destroy());
  return { head: head.subarray(0, bytes), rest };
}
