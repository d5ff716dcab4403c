import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { WebApp } from './web-app.js';

/**
 * No inline scripts or styles, nothing from elsewhere but avatars (the git provider's images), no
 * framing: what an injected string could do in the page is as little as possible.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: https:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** First path segments that are never a repository owner's page: the server's own routes. */
const RESERVED = new Set([
  'api',
  'rpc',
  'assets',
  'hook',
  'login',
  'logout',
  'healthz',
  'metrics',
  'docs',
  'version',
  // `/orgs/{org}/insights` is an organisation's page, never a repository's.
  'orgs',
]);

/** The UI's bookmarkable paths (docs/ui.md), answered with its page. */
const PAGES = [
  '/account',
  '/admin',
  '/admin/*',
  '/:owner/:name',
  '/:owner/:name/settings',
  '/:owner/:name/tests',
  '/:owner/:name/tests/:id',
  '/:owner/:name/insights',
  '/orgs/:org/insights',
  '/:owner/:name/:number',
  '/:owner/:name/:number/:stage/:step',
];

/** Sends the UI's page: never cached (it names the current assets), under the Content-Security-Policy. */
export function sendWebPage(reply: FastifyReply, web: WebApp): FastifyReply {
  return reply
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-cache')
    .header('content-security-policy', CONTENT_SECURITY_POLICY)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'same-origin')
    .send(web.html);
}

/**
 * The web UI: its hashed assets under /assets (cached for a year: a new build has new names), sent
 * precompressed (brotli, else gzip) when the browser accepts it, and its page for every path of the
 * UI, so that a bookmarked or reloaded URL opens where it was.
 */
export function registerWebApp(app: FastifyInstance, web: WebApp): void {
  app.get('/assets/:file', async (request: FastifyRequest<{ Params: { file: string } }>, reply) => {
    const asset = web.assets.get(request.params.file);
    if (asset === undefined) return reply.code(404).send({ message: `no asset ${request.params.file}` });
    const accepts = String(request.headers['accept-encoding'] ?? '');
    const [encoding, body] =
      asset.brotli && /\bbr\b/.test(accepts)
        ? ['br', asset.brotli]
        : asset.gzip && /\bgzip\b/.test(accepts)
          ? ['gzip', asset.gzip]
          : [undefined, asset.raw];
    if (encoding !== undefined) reply.header('content-encoding', encoding);
    return reply
      .type(asset.type)
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('vary', 'accept-encoding')
      .header('x-content-type-options', 'nosniff')
      .send(body);
  });
  for (const path of PAGES) {
    app.get(path, async (request: FastifyRequest<{ Params: { owner?: string } }>, reply) => {
      if (request.params.owner !== undefined && RESERVED.has(request.params.owner)) {
        return reply.callNotFound();
      }
      return sendWebPage(reply, web);
    });
  }
}
