import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../../core/errors.js';
import type { LogLine } from '../../core/log.js';
import { newBuild, newRepo, newStage, useStore, type OpenFreshStore } from './fixtures.case.js';

function lines(from: number, count: number): LogLine[] {
  return Array.from({ length: count }, (_, i) => ({
    pos: from + i,
    out: `line ${from + i} ü`,
    time: from + i,
  }));
}

/** LogBatchStore: numbered batches of running steps, duplicates dropped, read back in order. */
export function logBatchesContract(open: OpenFreshStore): void {
  describe('log batches', () => {
    const store = useStore(open);

    async function stepId(): Promise<number> {
      const repo = await store().repos.create(newRepo());
      const { stages } = await store().builds.create(newBuild(repo.id), [newStage(1, 1)]);
      const [step] = await store().steps.list(stages[0]?.id ?? 0);
      if (step === undefined) throw new Error('no step');
      return step.id;
    }

    it('stores batches and lists their lines in batch order, whatever the arrival order', async () => {
      const id = await stepId();
      expect(await store().logBatches.append(id, 1, lines(2, 3))).toBe(true);
      expect(await store().logBatches.append(id, 0, lines(0, 2))).toBe(true);
      expect(await store().logBatches.list(id)).toEqual(lines(0, 5));
    });

    it('stores the lines’ JSON as it came when given', async () => {
      const id = await stepId();
      const json = JSON.stringify(lines(0, 3));
      expect(await store().logBatches.append(id, 0, lines(0, 3), json)).toBe(true);
      expect(await store().logBatches.list(id)).toEqual(lines(0, 3));
      expect((await store().logBatches.json(id, 1))?.batches.map((b) => b.toString('utf8'))).toEqual([json]);
    });

    it('drops a batch whose number the step already has, keeping the first', async () => {
      const id = await stepId();
      expect(await store().logBatches.append(id, 0, lines(0, 2))).toBe(true);
      expect(await store().logBatches.append(id, 0, [{ pos: 0, out: 'other', time: 9 }])).toBe(false);
      expect(await store().logBatches.list(id)).toEqual(lines(0, 2));
    });

    it('gives the stored JSON of batches 0 … count − 1 in order, later ones apart, and undefined for a gap', async () => {
      const id = await stepId();
      await store().logBatches.append(id, 2, lines(5, 1));
      await store().logBatches.append(id, 0, lines(0, 2));
      const parse = (arrays: Buffer[]) => arrays.map((a) => JSON.parse(a.toString('utf8')) as unknown);
      expect(await store().logBatches.json(id, 2)).toBeUndefined();
      await store().logBatches.append(id, 1, lines(2, 3));
      const stored = await store().logBatches.json(id, 2);
      expect(parse(stored?.batches ?? [])).toEqual([lines(0, 2), lines(2, 3)]);
      expect(parse(stored?.later ?? [])).toEqual([lines(5, 1)]);
      expect(await store().logBatches.json(id, 0)).toEqual({
        batches: [],
        later: stored?.batches.concat(stored.later),
      });
      // From batch 1 on: batch 0 is checked, not read.
      const tail = await store().logBatches.json(id, 2, 1);
      expect(parse(tail?.batches ?? [])).toEqual([lines(2, 3)]);
      expect(parse(tail?.later ?? [])).toEqual([lines(5, 1)]);
      expect(await store().logBatches.json(id, 3, 2)).toEqual({ batches: stored?.later, later: [] });
    });

    it('gives no JSON from a later batch when an earlier one is missing', async () => {
      const id = await stepId();
      await store().logBatches.append(id, 1, lines(2, 3));
      await store().logBatches.append(id, 2, lines(5, 1));
      expect(await store().logBatches.json(id, 3, 1)).toBeUndefined();
      expect(await store().logBatches.json(id, 3, 2)).toBeUndefined();
    });

    it('gives the batches numbered above a given one, in order, with their lines', async () => {
      const id = await stepId();
      await store().logBatches.append(id, 2, lines(5, 1));
      await store().logBatches.append(id, 0, lines(0, 2));
      await store().logBatches.append(id, 1, lines(2, 3));
      expect(await store().logBatches.after(id, 0)).toEqual([
        { batch: 1, lines: lines(2, 3) },
        { batch: 2, lines: lines(5, 1) },
      ]);
      expect(await store().logBatches.after(id, -1)).toHaveLength(3);
      expect(await store().logBatches.after(id, 2)).toEqual([]);
    });

    it('deletes a step’s batches, and lists nothing for a step without batches', async () => {
      const id = await stepId();
      await store().logBatches.append(id, 0, lines(0, 1));
      await store().logBatches.delete(id);
      expect(await store().logBatches.list(id)).toEqual([]);
      await store().logBatches.delete(id);
    });

    it('says NotFoundError for a step that does not exist', async () => {
      await expect(store().logBatches.append(999_999, 0, lines(0, 1))).rejects.toThrow(NotFoundError);
    });
  });
}
