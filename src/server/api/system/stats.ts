import { z } from 'zod';
import type { BuildStore } from '../../../core/build.js';
import type { QueueStore } from '../../../core/queue.js';
import type { RepoStore } from '../../../core/repo.js';
import type { UserStore } from '../../../core/user.js';
import { ADMIN, route, type ApiRoute } from '../route.js';

/** What the statistics are read from. */
export interface StatsDeps {
  readonly users: Pick<UserStore, 'count'>;
  readonly repos: Pick<RepoStore, 'listActive'>;
  readonly builds: Pick<BuildStore, 'count' | 'listIncomplete'>;
  readonly queue: Pick<QueueStore, 'listIncomplete' | 'pausedSince'>;
}

const count = z.number().int().min(0);

const platformSchema = z.object({
  os: z.string(),
  arch: z.string(),
  variant: z.string(),
  kernel: z.string(),
  pending: count,
  running: count,
});

export const statsSchema = z.object({
  users: z.object({ total: count }),
  repos: z.object({ active: count }),
  builds: z.object({ pending: count, running: count, total: count }),
  pipelines: z.array(platformSchema).describe('incomplete stages per platform'),
  queue: z.object({ paused: z.boolean() }).describe('svc: whether the queue is paused'),
});

/**
 * GET /api/system/stats (svc administrators): Drone's statistics as far as svc keeps the numbers —
 * users, active repositories, builds (pending, running, total) and the incomplete stages per
 * platform. Drone's event and log-stream subscriber counts are left out (svc does not count them);
 * svc adds whether the queue is paused. Drone lists a fixed set of platforms; svc lists those its
 * incomplete stages have.
 */
export function statsRoute(deps: StatsDeps): ApiRoute {
  return route({
    method: 'GET',
    path: '/api/system/stats',
    access: ADMIN,
    tag: 'system',
    summary: 'Counts of users, repositories, builds and queued stages',
    response: { schema: statsSchema, description: 'the statistics' },
    async handler(): Promise<z.infer<typeof statsSchema>> {
      const [users, repos, total, builds, stages, pausedSince] = await Promise.all([
        deps.users.count(),
        deps.repos.listActive(),
        deps.builds.count(),
        deps.builds.listIncomplete(),
        deps.queue.listIncomplete(),
        deps.queue.pausedSince(),
      ]);
      const platforms = new Map<string, z.infer<typeof platformSchema>>();
      for (const { stage } of stages) {
        const key = [stage.os, stage.arch, stage.variant, stage.kernel].join('/');
        const platform = platforms.get(key) ?? {
          os: stage.os,
          arch: stage.arch,
          variant: stage.variant,
          kernel: stage.kernel,
          pending: 0,
          running: 0,
        };
        if (stage.status === 'running') platform.running++;
        else platform.pending++;
        platforms.set(key, platform);
      }
      return {
        users: { total: users },
        repos: { active: repos.length },
        builds: {
          pending: builds.filter((b) => b.status === 'pending').length,
          running: builds.filter((b) => b.status === 'running').length,
          total,
        },
        pipelines: [...platforms.values()],
        queue: { paused: pausedSince > 0 },
      };
    },
  });
}
