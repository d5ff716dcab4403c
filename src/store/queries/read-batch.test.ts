import { describe, expect, it } from 'vitest';
import { ReadBatch } from './read-batch.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('ReadBatch', () => {
  it('reads keys asked for together in one load, and those asked for during it in the next one', async () => {
    const loads: number[][] = [];
    let release: () => void = () => undefined;
    const batch = new ReadBatch<number, { n: number }>(async (keys) => {
      loads.push(keys);
      if (loads.length === 1) await new Promise<void>((resolve) => (release = resolve));
      return new Map(keys.filter((k) => k > 0).map((k) => [k, { n: k }]));
    });
    const first = [batch.get(1), batch.get(2), batch.get(1)];
    await tick();
    expect(loads).toEqual([[1, 2]]);
    // The first load is under way: these wait for it, then go in one load.
    const second = [batch.get(3), batch.get(0)];
    await tick();
    const third = batch.get(4);
    await tick();
    expect(loads).toHaveLength(1);
    release();
    const [one, two, oneAgain] = await Promise.all(first);
    expect([one, two, oneAgain]).toEqual([{ n: 1 }, { n: 2 }, { n: 1 }]);
    expect(oneAgain).not.toBe(one);
    expect(await Promise.all([...second, third])).toEqual([{ n: 3 }, undefined, { n: 4 }]);
    expect(loads).toEqual([
      [1, 2],
      [3, 0, 4],
    ]);
  });

  it('rejects the callers of a failed load and goes on with the next', async () => {
    let fail = true;
    const batch = new ReadBatch<number, number>((keys) =>
      fail
        ? Promise.reject(new Error('database unavailable'))
        : Promise.resolve(new Map(keys.map((k) => [k, k]))),
    );
    await expect(batch.get(1)).rejects.toThrow('database unavailable');
    fail = false;
    expect(await batch.get(2)).toBe(2);
  });
});
