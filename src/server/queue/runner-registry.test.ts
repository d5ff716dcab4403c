import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { Store } from '../../core/store.js';
import { linuxDockerFilter } from '../../runner/testing/filter.js';
import { openStore } from '../../store/index.js';
import { testDialects } from '../../../test/support/databases.js';
import { RunnerRegistry } from './runner-registry.js';

const RUNNER = { name: 'runner-a', kind: 'docker' as const, capacity: 2, max_procs: 0, version: '1.0.0' };

describe('RunnerRegistry', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  async function store(): Promise<Store> {
    const sqlite = testDialects()[0];
    if (sqlite === undefined) throw new Error('no SQLite dialect');
    const database = await sqlite.create();
    const opened = await openStore({ datasource: database.datasource });
    cleanups.push(async () => {
      await opened.close();
      await database.drop();
    });
    return opened;
  }

  it('writes a runner at its first poll, then its last contact at most every interval, and a change at once', async () => {
    const s = await store();
    let now = 1_000;
    const registry = new RunnerRegistry({
      runners: s.runners,
      logger: pino({ level: 'silent' }),
      interval: 15_000,
      now: () => now,
    });
    const seen = async () => (await s.runners.findName('runner-a'))?.lastSeen;

    await registry.seen(linuxDockerFilter(undefined, RUNNER));
    expect(await s.runners.findName('runner-a')).toMatchObject({
      capacity: 2,
      type: 'docker',
      lastSeen: 1_000,
    });
    now = 10_000;
    await registry.seen(linuxDockerFilter(undefined, RUNNER));
    expect(await seen()).toBe(1_000);
    now = 16_000;
    await registry.seen(linuxDockerFilter(undefined, RUNNER));
    expect(await seen()).toBe(16_000);
    now = 17_000;
    await registry.seen(linuxDockerFilter(undefined, { ...RUNNER, capacity: 4 }));
    expect(await s.runners.findName('runner-a')).toMatchObject({ capacity: 4, lastSeen: 17_000 });
  });

  it('registers nothing for a runner that does not say who it is', async () => {
    const s = await store();
    const registry = new RunnerRegistry({ runners: s.runners, logger: pino({ level: 'silent' }) });
    await registry.seen(linuxDockerFilter());
    expect(await s.runners.list()).toEqual([]);
  });
});
