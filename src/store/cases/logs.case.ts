import { describe, expect, it } from 'vitest';
import type { LogLine } from '../../core/log.js';
import { NotFoundError } from '../../core/errors.js';
import { newBuild, newRepo, newStage, useStore, type OpenFreshStore } from './fixtures.case.js';

/** `count` lines of about `width` characters each. */
function lines(count: number, width: number): LogLine[] {
  const filler = 'x'.repeat(width);
  return Array.from({ length: count }, (_, pos) => ({
    pos,
    out: `${pos} ${filler} ü\n`,
    time: Math.floor(pos / 100),
  }));
}

/** LogStore: a step's whole log, replaced and deleted as one; large logs; logs made of log batches. */
export function logsContract(open: OpenFreshStore): void {
  describe('logs', () => {
    const store = useStore(open);

    async function stepIds(count: number): Promise<number[]> {
      const repo = await store().repos.create(newRepo());
      const { stages } = await store().builds.create(newBuild(repo.id), [newStage(1, count)]);
      return (await store().steps.list(stages[0]?.id ?? 0)).map((s) => s.id);
    }

    it('stores a step’s lines and gives them back, and undefined for a step without a log', async () => {
      const [withLog = 0, without = 0] = await stepIds(2);
      const log = [
        { pos: 0, out: '+ echo "hello"\n', time: 0 },
        { pos: 1, out: 'hello 🌍 \u001b[32mgreen\u001b[0m\n', time: 1 },
      ];
      await store().logs.create(withLog, log);
      expect(await store().logs.find(withLog)).toEqual(log);
      expect(await store().logs.find(without)).toBeUndefined();
    });

    it('replaces a log on a second create, and stores an empty log', async () => {
      const [stepId = 0] = await stepIds(1);
      await store().logs.create(stepId, lines(10, 10));
      await store().logs.create(stepId, []);
      expect(await store().logs.find(stepId)).toEqual([]);
      await store().logs.create(stepId, lines(3, 5));
      expect(await store().logs.find(stepId)).toEqual(lines(3, 5));
    });

    it('deletes a log', async () => {
      const [stepId = 0] = await stepIds(1);
      await store().logs.create(stepId, lines(2, 2));
      await store().logs.delete(stepId);
      expect(await store().logs.find(stepId)).toBeUndefined();
      await store().logs.delete(stepId);
    });

    it('round-trips a log of several megabytes', async () => {
      const [stepId = 0] = await stepIds(1);
      const big = lines(60_000, 100); // about 7 MB of JSON
      await store().logs.create(stepId, big);
      const found = await store().logs.find(stepId);
      expect(found).toHaveLength(big.length);
      expect(found).toEqual(big);
    });

    it('stores a log made of JSON arrays of lines and the lines after them, as create would', async () => {
      const [joined = 0, empty = 0] = await stepIds(2);
      const all = lines(7, 5);
      const json = (part: typeof all) => Buffer.from(JSON.stringify(part), 'utf8');
      await store().logs.createJson(
        joined,
        [json(all.slice(0, 2)), json([]), json(all.slice(2, 4))],
        all.slice(4),
      );
      expect(await store().logs.find(joined)).toEqual(all);
      await store().logs.createJson(empty, [json([])], []);
      expect(await store().logs.find(empty)).toEqual([]);
      await expect(store().logs.createJson(joined, [Buffer.from('{}')], [])).rejects.toThrow(
        /not a JSON array/,
      );
      expect(await store().logs.find(joined)).toEqual(all);
    });

    it('gives the stored JSON as the log route sends it: what find gives, stringified', async () => {
      const [small = 0, big = 0, joined = 0, empty = 0, without = 0] = await stepIds(5);
      const escapes = [
        { pos: 0, out: '\u001b[32mgreen\u001b[0m "quoted" \\ \t🌍\n', time: 0 },
        { pos: 1, out: '\u0000\u2028\ud800', time: 2 },
      ];
      const all = lines(7, 5);
      await store().logs.create(small, escapes);
      // About 2 MB: in parts where the dialect caps the size of a statement (MySQL: 1 MiB).
      await store().logs.create(big, lines(15_000, 100));
      await store().logs.createJson(joined, [Buffer.from(JSON.stringify(all.slice(0, 3)))], all.slice(3));
      await store().logs.create(empty, []);
      for (const stepId of [small, big, joined, empty]) {
        const json = (await store().logs.findJson(stepId))?.toString('utf8');
        expect(json).toBe(JSON.stringify(await store().logs.find(stepId)));
      }
      expect(await store().logs.findJson(without)).toBeUndefined();
    });

    it('makes a log of the step’s batches as stored and the lines after them, keeping the batches as its parts', async () => {
      const [stepId = 0] = await stepIds(1);
      const all = lines(8, 5);
      await store().logBatches.append(stepId, 1, all.slice(2, 5));
      await store().logBatches.append(stepId, 0, all.slice(0, 2));
      // A later batch than the log names: its lines come again in `rest`, and it is not the log's.
      await store().logBatches.append(stepId, 2, all.slice(5, 6));
      expect(await store().logs.createFromBatches(stepId, 4, [])).toBe(false);
      expect(await store().logs.find(stepId)).toBeUndefined();
      expect(await store().logs.createFromBatches(stepId, 2, all.slice(5))).toBe(true);
      expect(await store().logs.find(stepId)).toEqual(all);
      expect((await store().logs.findJson(stepId))?.toString('utf8')).toBe(JSON.stringify(all));
      // The batches are the log's now: not a running step's, and not deleted with those.
      expect(await store().logBatches.list(stepId)).toEqual(all.slice(5, 6));
      await store().logBatches.delete(stepId);
      expect(await store().logBatches.list(stepId)).toEqual([]);
      expect(await store().logs.find(stepId)).toEqual(all);
      // A retry stores the same log again.
      expect(await store().logs.createFromBatches(stepId, 2, all.slice(5))).toBe(true);
      expect(await store().logs.find(stepId)).toEqual(all);
    });

    it('makes a log of no batches, and of large batches and lines in parts', async () => {
      const [none = 0, large = 0] = await stepIds(2);
      expect(await store().logs.createFromBatches(none, 0, lines(2, 1))).toBe(true);
      expect(await store().logs.find(none)).toEqual(lines(2, 1));
      // About 1.2 MB per batch and 2.4 MB after them: in parts where the dialect caps a statement.
      const all = lines(40_000, 100);
      await store().logBatches.append(large, 0, all.slice(0, 10_000));
      await store().logBatches.append(large, 1, all.slice(10_000, 20_000));
      expect(await store().logs.createFromBatches(large, 2, all.slice(20_000))).toBe(true);
      expect((await store().logs.findJson(large))?.toString('utf8')).toBe(JSON.stringify(all));
    });

    it('replaces or deletes a log made of batches with the batches', async () => {
      const [replaced = 0, deleted = 0] = await stepIds(2);
      for (const stepId of [replaced, deleted]) {
        await store().logBatches.append(stepId, 0, lines(3, 2));
        expect(await store().logs.createFromBatches(stepId, 1, [])).toBe(true);
      }
      await store().logs.create(replaced, lines(1, 9));
      expect(await store().logs.find(replaced)).toEqual(lines(1, 9));
      await store().logs.delete(deleted);
      expect(await store().logs.find(deleted)).toBeUndefined();
      // Gone, not back as the batches of a running step.
      expect(await store().logBatches.list(replaced)).toEqual([]);
      expect(await store().logBatches.list(deleted)).toEqual([]);
      expect(await store().logBatches.json(deleted, 1)).toBeUndefined();
    });

    it('says NotFoundError for a step that does not exist', async () => {
      await expect(store().logs.create(999_999, lines(1, 1))).rejects.toThrow(NotFoundError);
      await expect(store().logs.createFromBatches(999_999, 0, [])).rejects.toThrow(NotFoundError);
    });
  });
}
