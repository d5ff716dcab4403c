import { describe, expect, it } from 'vitest';
import { CoalescingLock } from './coalescing-lock.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('CoalescingLock', () => {
  it('runs one task at a time per key; callers that come while a run waits join it', async () => {
    const lock = new CoalescingLock();
    const started: string[] = [];
    let release: () => void = () => undefined;
    const task = (name: string) => async (flag: boolean) => {
      started.push(`${name}:${flag}`);
      if (name === 'first') await new Promise<void>((resolve) => (release = resolve));
      return name;
    };
    const first = lock.run('build-1', false, task('first'));
    await tick();
    // The first run is under way: these three wait for one more run, and share it.
    const second = lock.run('build-1', false, task('second'));
    const third = lock.run('build-1', true, task('third'));
    const fourth = lock.run('build-1', false, task('fourth'));
    // Another key runs alongside.
    expect((await lock.run('build-2', false, task('other'))).value).toBe('other');
    expect(started).toEqual(['first:false', 'other:false']);
    release();
    const [a, b, c, d] = await Promise.all([first, second, third, fourth]);
    expect([a.value, b.value, c.value, d.value]).toEqual(['first', 'second', 'second', 'second']);
    // The joined run got the flags of all its callers; one of them claims its result.
    expect(started).toEqual(['first:false', 'other:false', 'second:true']);
    expect(a.claim()).toBe(true);
    expect([b.claim(), c.claim(), d.claim()]).toEqual([true, false, false]);
  });

  it('starts a new run for a caller that comes once the waiting run has started', async () => {
    const lock = new CoalescingLock();
    let runs = 0;
    const task = async () => {
      runs++;
      await tick();
      return runs;
    };
    const first = lock.run('k', false, task);
    await tick();
    const second = lock.run('k', false, task);
    expect((await first).value).toBe(1);
    expect((await second).value).toBe(2);
    expect((await lock.run('k', false, task)).value).toBe(3);
  });

  it('hands a failure to every caller of the run, and runs the next one anyway', async () => {
    const lock = new CoalescingLock();
    let release: () => void = () => undefined;
    const first = lock.run(
      'k',
      false,
      () => new Promise<string>((resolve) => (release = () => resolve('ok'))),
    );
    await tick();
    const failing = () => Promise.reject(new Error('database unavailable'));
    const joined = [lock.run('k', false, failing), lock.run('k', false, failing)];
    release();
    expect((await first).value).toBe('ok');
    for (const run of joined) await expect(run).rejects.toThrow('database unavailable');
    expect((await lock.run('k', false, () => Promise.resolve('again'))).value).toBe('again');
  });
});
