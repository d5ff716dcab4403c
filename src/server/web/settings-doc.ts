import { readFile } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import { NotFoundError } from '../../core/errors.js';

/** docs/settings.md of the installed package: three levels up from both src/server/web and dist/server/web. */
const SETTINGS_DOC = new URL('../../../docs/settings.md', import.meta.url);

/**
 * GET /docs/settings.md: the settings reference that ships with svc, so that the start page's
 * "how to enable login" link works on a server that has no other way to show it.
 */
export function settingsDocRoute(app: FastifyInstance): void {
  app.get('/docs/settings.md', async (_request, reply) => {
    const text = await readFile(SETTINGS_DOC, 'utf8').catch(() => {
      throw new NotFoundError('docs/settings.md (not part of this installation)');
    });
    return reply.type('text/markdown; charset=utf-8').send(text);
  });
}
