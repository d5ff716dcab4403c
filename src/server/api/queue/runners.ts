import { z } from 'zod';
import { RUNNER_KINDS, type Runner, type RunnerStore } from '../../../core/runner.js';
import type { QueueStore } from '../../../core/queue.js';
import { ADMIN, route, type ApiRoute } from '../route.js';

/** What listing runners needs. */
export interface RunnersDeps {
  readonly runners: Pick<RunnerStore, 'list'>;
  readonly queue: Pick<QueueStore, 'takenBy'>;
}

const int = z.number().int();

/** A registered runner as the API shows it (svc's: Drone's API has no runners). */
export const runnerSchema = z.object({
  id: int,
  name: z.string(),
  kind: z.enum(RUNNER_KINDS),
  type: z.string().describe('the pipeline type it runs'),
  labels: z.record(z.string(), z.string()),
  os: z.string(),
  arch: z.string(),
  capacity: int.describe('stages it runs at once (SVC_RUNNER_CAPACITY)'),
  max_procs: int.describe('steps it runs at once per stage (SVC_RUNNER_MAX_PROCS); 0 = no limit'),
  version: z.string(),
  last_contact: int.min(0).describe('epoch seconds of its last poll (written at most every 15 s)'),
  stages_running: int.min(0).describe('stages it has taken and not finished'),
  created: int.min(0),
  updated: int.min(0),
});

function runnerJson(runner: Runner, running: number): z.infer<typeof runnerSchema> {
  return {
    id: runner.id,
    name: runner.name,
    kind: runner.kind,
    type: runner.type,
    labels: runner.labels,
    os: runner.os,
    arch: runner.arch,
    capacity: runner.capacity,
    max_procs: runner.maxProcs,
    version: runner.version,
    last_contact: Math.floor(runner.lastSeen / 1000),
    stages_running: running,
    created: Math.floor(runner.created / 1000),
    updated: Math.floor(runner.updated / 1000),
  };
}

/** GET /api/runners (svc administrators): the runners that have polled this server, by name. */
export function runnersRoute(deps: RunnersDeps): ApiRoute {
  return route({
    method: 'GET',
    path: '/api/runners',
    access: ADMIN,
    tag: 'queue',
    summary: 'The registered runners with their last contact and the stages they run',
    response: { schema: z.array(runnerSchema), description: 'the runners, by name' },
    async handler() {
      const [runners, held] = await Promise.all([deps.runners.list(), deps.queue.takenBy()]);
      return runners.map((runner) => runnerJson(runner, held.get(runner.name) ?? 0));
    },
  });
}
