import rateLimit, { type RateLimitOptions } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SvcError } from '../core/errors.js';

/**
 * Where guessing pays: the login pages (a password form, OAuth callbacks) and the API token
 * endpoint. Requests per client address and minute; everything else is not limited here.
 */
const LIMITS: readonly { prefix: string; perMinute: number; what: string }[] = [
  { prefix: '/login', perMinute: 60, what: 'login attempts' },
  { prefix: '/api/user/token', perMinute: 30, what: 'token requests' },
];

/**
 * The limit of the route the request reached (its pattern, once routing decoded the URL): matched
 * on the raw URL, `/%6cogin` reached the login route without being counted.
 */
function limitOf(request: FastifyRequest) {
  const route = request.routeOptions.url ?? '';
  return LIMITS.find((limit) => route === limit.prefix || route.startsWith(`${limit.prefix}/`));
}

const OPTIONS: RateLimitOptions = {
  timeWindow: 60_000,
  max: (request) => limitOf(request)?.perMinute ?? Number.MAX_SAFE_INTEGER,
  keyGenerator: (request) => `${limitOf(request)?.prefix ?? ''} ${request.ip}`,
  errorResponseBuilder: (request, context) =>
    new SvcError(
      'RATE_LIMITED',
      `too many ${limitOf(request)?.what ?? 'requests'} from this address (${context.max} a minute); try again in ${Math.ceil(context.ttl / 1000)} s`,
    ),
};

/**
 * Rate limits (@fastify/rate-limit) on the login and token endpoints: past the limit the answer is
 * 429 RATE_LIMITED saying when to try again, in the shape of every other error. The limiter runs
 * from a root hook added before any route (the plugin's own per-route hooks only reach routes
 * declared once it has loaded, and some routes are declared on the root at once).
 */
export function registerRateLimits(app: FastifyInstance): void {
  void app.register(rateLimit, { global: false });
  let limiter: ((request: FastifyRequest, reply: FastifyReply) => Promise<void>) | undefined;
  app.addHook('onRequest', async (request, reply) => {
    if (limitOf(request) === undefined) return;
    limiter ??= app.rateLimit(OPTIONS) as unknown as (
      request: FastifyRequest,
      reply: FastifyReply,
    ) => Promise<void>;
    await limiter(request, reply);
  });
}
