import { readFile } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import { NotFoundError } from '../../core/errors.js';

/**
 * The docs the server's own pages link to: the settings reference (the start page's "how to enable
 * login"), the build caches (the web UI's settings page), artifacts and test reports (a build
 * page's empty tabs).
 */
const SERVED_DOCS = ['settings.md', 'caches.md', 'artifacts.md', 'test-reports.md'] as const;

/**
 * GET /docs/{name}.md for each of them: those docs as they ship with svc, read from the
 * installed package's docs/ (three levels up from both src/server/web and dist/server/web), so that
 * the links work on a server that has no other way to show them.
 */
export function docRoutes(app: FastifyInstance): void {
  for (const name of SERVED_DOCS) {
    const file = new URL(`../../../docs/${name}`, import.meta.url);
    app.get(`/docs/${name}`, async (_request, reply) => {
      const text = await readFile(file, 'utf8').catch(() => {
        throw new NotFoundError(`docs/${name} (not part of this installation)`);
      });
      return reply.type('text/markdown; charset=utf-8').send(text);
    });
  }
}
