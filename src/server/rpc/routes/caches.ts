import type { FastifyInstance } from 'fastify';
import type { Readable } from 'node:stream';
import { z } from 'zod';
import { dayOf } from '../../../core/insights.js';
import { InvalidInputError } from '../../../core/errors.js';
import type { Store } from '../../../core/store.js';
import type { CacheService } from '../../caches/service.js';
import { parseBody } from '../parse.js';
import { runningStage } from './running-stage.js';
import { sweptAsItFlows } from '../../../platform/dead-buffers.js';

/** The content type of a cache archive on the wire: a zstd-compressed tar. */
export const CACHE_CONTENT_TYPE = 'application/zstd';

export interface CacheRouteDeps {
  store: Pick<Store, 'stages' | 'builds' | 'repos'> & Partial<Pick<Store, 'insights'>>;
  caches: Pick<CacheService, 'restore' | 'save' | 'writeRefusal'>;
}

/** A key as runners make them: 1 to 512 characters, no control characters, well-formed text. */
const cacheKey = z
  .string()
  .min(1)
  .max(512)
  .refine((key) => key.isWellFormed() && ![...key].some((c) => c < ' ' || c === '\u007f'), {
    message: 'expected text without control characters',
  });

const restoreBody = z.object({
  key: cacheKey,
  restore_keys: z.array(cacheKey).max(16).default([]),
});

/**
 * The runner protocol's caches (docs/caches.md, docs/runners.md), for a stage the runner holds and
 * runs; the server — never the runner — decides the repository, the scope and whether it may write:
 * - `POST /rpc/v2/stage/{id}/cache/restore` `{key, restore_keys}` → 200 with the archive
 *   (application/zstd), its key in `X-SVC-Cache-Key` (URI-encoded) and `X-SVC-Cache-Exact:
 *   true|false`; 204 when nothing matches. Either way `X-SVC-Cache-Write-Refused` (URI-encoded)
 *   says why the build may not save caches, when it may not.
 * - `PUT /rpc/v2/stage/{id}/cache?key=…` with the archive as the body, streamed → 201 `{size}`;
 *   403 for a build that may not write caches (a fork's pull request), 400 for one over
 *   SVC_CACHE_MAX_SIZE.
 */
export function cacheRoutes(app: FastifyInstance, deps: CacheRouteDeps): void {
  app.post('/stage/:id/cache/restore', async (request, reply) => {
    const { repo, build } = await runningStage(request, deps);
    const body = parseBody(restoreBody, request.body ?? {}, 'the cache request');
    // Said now, so that the runner does not pack and upload a cache that would be refused.
    const refusal = deps.caches.writeRefusal(repo, build);
    if (refusal !== undefined) void reply.header('x-svc-cache-write-refused', encodeURIComponent(refusal));
    const found = await deps.caches.restore(repo, build, body.key, body.restore_keys);
    // The hit rate of the insights (docs/insights.md); a count that fails is not the build's problem.
    await deps.store.insights
      ?.countCache(repo.id, dayOf(Date.now()), found !== undefined)
      .catch((error: unknown) => {
        request.log.warn({ err: error }, 'build insights: a cache lookup was not counted');
      });
    if (found === undefined) return reply.code(204).send();
    return reply
      .code(200)
      .type(CACHE_CONTENT_TYPE)
      .header('content-length', found.entry.size)
      .header('x-svc-cache-key', encodeURIComponent(found.entry.key))
      .header('x-svc-cache-exact', String(found.exact))
      .send(sweptAsItFlows(found.body));
  });

  // The archive is read as it comes, never parsed or held: its own parser in its own context.
  void app.register((streamed, _options, done) => {
    streamed.addContentTypeParser(CACHE_CONTENT_TYPE, (_request, payload, parsed) => parsed(null, payload));
    streamed.put('/stage/:id/cache', async (request, reply) => {
      const { repo, build } = await runningStage(request, deps);
      const key = cacheKey.safeParse((request.query as { key?: unknown }).key);
      if (!key.success)
        throw new InvalidInputError(
          'key: expected the cache key, 1 to 512 characters without control characters',
        );
      if (request.headers['content-type'] !== CACHE_CONTENT_TYPE)
        throw new InvalidInputError(`the archive: expected Content-Type ${CACHE_CONTENT_TYPE}`);
      const entry = await deps.caches.save(repo, build, key.data, sweptAsItFlows(request.body as Readable));
      return reply.code(201).send({ size: entry.size });
    });
    done();
  });
}
