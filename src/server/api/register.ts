import type { FastifyInstance } from 'fastify';
import { InvalidInputError } from '../../core/errors.js';
import { ArrayReplies } from './array-replies.js';
import type { AccessGuard } from './guard.js';
import { parseInput } from './params.js';
import type { ApiRoute } from './route.js';

/**
 * Registers the route table on an API scope: for each route, the guard admits the caller first,
 * then the path, query and body are parsed with the route's schemas (INVALID_INPUT naming the
 * field otherwise), then its code runs. Long arrays are sent as ArrayReplies writes them.
 */
export function registerRoutes(api: FastifyInstance, routes: readonly ApiRoute[], guard: AccessGuard): void {
  acceptAnyBody(api);
  const replies = new ArrayReplies();
  for (const route of routes) {
    api.route({
      method: route.method,
      url: route.path,
      handler: async (request, reply) => {
        const { principal, repo } = await guard.admit(route.access, request);
        const params = route.params === undefined ? {} : parseInput(route.params, request.params);
        const query = route.query === undefined ? {} : parseInput(route.query, request.query);
        // An empty body reads as `{}`, so that schemas whose fields are all optional accept it.
        const body = route.body === undefined ? undefined : parseInput(route.body, request.body ?? {});
        return replies.body(
          await route.handler({ request, reply, principal, repo, params, query, body }),
          reply,
        );
      },
    });
  }
}

/**
 * Bodies are JSON whatever their Content-Type, and an empty body is no body: `curl -X POST -d ''`
 * sends `application/x-www-form-urlencoded` with nothing in it, and clients of Drone's API post
 * actions (restart, approve, …) that way. A body that is not JSON is INVALID_INPUT saying so.
 */
function acceptAnyBody(api: FastifyInstance): void {
  api.removeAllContentTypeParsers();
  api.addContentTypeParser('*', { parseAs: 'string' }, (_request, text, done) => {
    const body = typeof text === 'string' ? text : text.toString('utf8');
    if (body.trim() === '') {
      done(null, undefined);
      return;
    }
    try {
      done(null, JSON.parse(body) as unknown);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      done(new InvalidInputError(`the request body is not valid JSON: ${reason}`), undefined);
    }
  });
}
