import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { Store } from '../../core/store.js';
import { newBuild, newRepo, newStage } from '../../store/cases/fixtures.case.js';
import { openStore } from '../../store/index.js';
import { HeartbeatWatchdog } from './watchdog.js';

describe('HeartbeatWatchdog', () => {
  it('does not count a database outage as runner silence: runners get a whole timeout after it', async () => {
    const datasource = {
      driver: 'embedded_sql',
      path: join(mkdtempSync(join(tmpdir(), 'svc-wd-')), 'svc.sqlite'),
    } as const;
    let store: Store = await openStore({ datasource });
    const repo = await store.repos.create(newRepo());
    const { stages } = await store.builds.create(newBuild(repo.id), [newStage(1, 0)]);
    const stage = stages[0];
    if (stage === undefined) throw new Error('no stage');
    await store.stages.update({ ...stage, status: 'running', machine: 'quiet', heartbeat: 1_000 });

    let now = 100_000;
    const failed: string[] = [];
    const watchdog = new HeartbeatWatchdog({
      // Whatever store is open now: closing it is the database going away.
      store: { queue: { listStale: (before) => store.queue.listStale(before) } },
      scheduler: {
        fail: (_id, message) => {
          failed.push(message);
          return Promise.resolve(true);
        },
        requeue: () => Promise.reject(new Error('only running stages here')),
      },
      logger: pino({ level: 'silent' }),
      timeout: 40_000,
      now: () => now,
    });

    await store.close();
    await expect(watchdog.sweep()).rejects.toThrow();
    store = await openStore({ datasource });
    now = 110_000; // the database is back; the runner's heartbeats will get through within 10 s
    expect(await watchdog.sweep()).toBe(0);
    now = 141_000; // a whole timeout after the outage and still silent: now it is judged
    expect(await watchdog.sweep()).toBe(1);
    expect(failed).toEqual(['runner "quiet" stopped sending heartbeats: no sign of life for 140 s']);
    await store.close();
  });
});
