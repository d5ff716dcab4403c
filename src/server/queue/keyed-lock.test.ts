import { describe, expect, it } from 'vitest';
import { KeyedLock } from './keyed-lock.js';

const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('KeyedLock', () => {
  it('runs tasks of one key one after another and tasks of different keys side by side', async () => {
    const lock = new KeyedLock<number>();
    const events: string[] = [];
    const task = (name: string, ms: number) => async () => {
      events.push(`${name} start`);
      await later(ms);
      events.push(`${name} end`);
      return name;
    };
    const results = await Promise.all([
      lock.run(1, task('a', 30)),
      lock.run(1, task('b', 1)),
      lock.run(2, task('c', 1)),
    ]);
    expect(results).toEqual(['a', 'b', 'c']);
    expect(events.indexOf('b start')).toBeGreaterThan(events.indexOf('a end'));
    expect(events.indexOf('c end')).toBeLessThan(events.indexOf('a end'));
    expect(lock.size).toBe(0);
  });

  it('goes on with the next task after one that failed, and gives the failure to its caller', async () => {
    const lock = new KeyedLock<string>();
    const failing = lock.run('k', () => Promise.reject(new Error('boom')));
    const next = lock.run('k', () => Promise.resolve('next'));
    await expect(failing).rejects.toThrow('boom');
    await expect(next).resolves.toBe('next');
  });
});
