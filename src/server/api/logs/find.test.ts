import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import type { Build } from '../../../core/build.js';
import type { LogLine } from '../../../core/log.js';
import type { Repo } from '../../../core/repo.js';
import type { Stage } from '../../../core/stage.js';
import type { Step } from '../../../core/step.js';
import { findLogRoute, type FindLogDeps } from './find.js';

/** The route's code behind a bare Fastify app (no guard: test/api covers access and errors). */
async function get(stored: Buffer): Promise<{ type: string | undefined; body: Buffer }> {
  const deps: FindLogDeps = {
    builds: { findNumber: () => Promise.resolve({ id: 1, number: 3 } as Build) },
    stages: { findNumber: () => Promise.resolve({ id: 2 } as Stage) },
    steps: { findNumber: () => Promise.resolve({ id: 4, name: 'build' } as Step) },
    logs: {
      findJson: () => Promise.resolve(stored),
      find: () => Promise.resolve(JSON.parse(stored.toString()) as LogLine[]),
    },
  };
  const route = findLogRoute(deps);
  const app = Fastify();
  app.get('/log', (request, reply) =>
    route.handler({
      request,
      reply,
      principal: undefined,
      repo: { id: 1 } as Repo,
      params: { owner: 'octocat', name: 'app', number: 3, stage: 1, step: 1 },
      query: {},
      body: undefined,
    }),
  );
  const answer = await app.inject({ method: 'GET', url: '/log' });
  await app.close();
  return { type: answer.headers['content-type'], body: answer.rawPayload };
}

describe('GET …/logs/{stage}/{step}', () => {
  it('sends the stored JSON unchanged, as JSON', async () => {
    const stored = Buffer.from(JSON.stringify([{ pos: 0, out: '\u001b[32mok\u001b[0m 🌍\n', time: 1 }]));
    const { type, body } = await get(stored);
    expect(type).toBe('application/json; charset=utf-8');
    expect(body.equals(stored)).toBe(true);
  });
});
