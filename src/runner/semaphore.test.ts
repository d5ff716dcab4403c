import { describe, expect, it } from 'vitest';
import { Semaphore } from './semaphore.js';

describe('Semaphore', () => {
  it('hands out at most `limit` slots and passes freed slots on in arrival order', async () => {
    const sem = new Semaphore(1);
    const first = await sem.acquire();
    const order: string[] = [];
    const second = sem.acquire().then((release) => (order.push('second'), release));
    const third = sem.acquire().then((release) => (order.push('third'), release));
    await Promise.resolve();
    expect(order).toEqual([]);
    first();
    first(); // a second release of the same slot frees nothing
    (await second)();
    (await third)();
    expect(order).toEqual(['second', 'third']);
  });

  it('never waits with a limit of 0', async () => {
    const sem = new Semaphore(0);
    const slots = await Promise.all([1, 2, 3].map(() => sem.acquire()));
    expect(slots).toHaveLength(3);
  });

  it('stops waiting when the signal aborts, and the slot goes to the next in line', async () => {
    const sem = new Semaphore(1);
    const held = await sem.acquire();
    const control = new AbortController();
    const aborted = sem.acquire(control.signal);
    const next = sem.acquire();
    control.abort(new Error('cancelled'));
    await expect(aborted).rejects.toThrow('cancelled');
    held();
    await expect(next).resolves.toBeTypeOf('function');
  });
});
