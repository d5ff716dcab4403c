import type { FastifyInstance } from 'fastify';

/** POST /rpc/v2/ping — Drone's runners check the server and their secret with it at start. 204. */
export function pingRoute(app: FastifyInstance): void {
  app.post('/ping', async (_request, reply) => reply.code(204).send());
}
