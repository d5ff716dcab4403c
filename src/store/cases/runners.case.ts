import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../../core/errors.js';
import { runnerRegistration, useStore, type OpenFreshStore } from './fixtures.case.js';

/** RunnerStore: registration by name (create or update), lookups, heartbeats, deletion. */
export function runnersContract(open: OpenFreshStore): void {
  describe('runners', () => {
    const store = useStore(open);

    it('registers a new runner, then updates the one of the same name', async () => {
      const input = runnerRegistration({ labels: { region: 'eu', 'disk.type': 'ssd' } });
      const first = await store().runners.register(input);
      expect(first).toMatchObject(input);
      expect(await store().runners.find(first.id)).toEqual(first);
      expect(await store().runners.findName(input.name)).toEqual(first);

      const again = await store().runners.register({
        ...input,
        capacity: 8,
        labels: { region: 'us' },
        version: '0.2.0',
      });
      expect(again).toMatchObject({
        id: first.id,
        created: first.created,
        capacity: 8,
        labels: { region: 'us' },
      });
      expect(await store().runners.find(first.id)).toEqual(again);
    });

    it('registers one runner when the same name registers concurrently', async () => {
      const input = runnerRegistration();
      const results = await Promise.all(Array.from({ length: 4 }, () => store().runners.register(input)));
      expect(new Set(results.map((r) => r.id)).size).toBe(1);
      expect((await store().runners.list()).filter((r) => r.name === input.name)).toHaveLength(1);
    });

    it('records the last time a runner was seen; a deleted runner is NotFoundError', async () => {
      const runner = await store().runners.register(runnerRegistration({ lastSeen: 1 }));
      await store().runners.touch(runner.id, 12_345);
      await store().runners.touch(runner.id, 12_345);
      expect((await store().runners.find(runner.id))?.lastSeen).toBe(12_345);
      await store().runners.delete(runner.id);
      expect(await store().runners.find(runner.id)).toBeUndefined();
      await expect(store().runners.touch(runner.id, 1)).rejects.toThrow(NotFoundError);
    });

    it('lists runners by name', async () => {
      await store().runners.register(runnerRegistration({ name: 'zz-runner' }));
      await store().runners.register(runnerRegistration({ name: 'aa-runner' }));
      const names = (await store().runners.list()).map((r) => r.name);
      expect(names[0]).toBe('aa-runner');
      expect(names.at(-1)).toBe('zz-runner');
    });
  });
}
