import { afterAll, describe, expect, it } from 'vitest';
import type { ClusterSignal } from '../../core/cluster.js';
import type { Store } from '../../core/store.js';
import { useOpenedStore, useStore, type OpenFreshStore } from './fixtures.case.js';

/** Waits up to 5 s for `heard` to hold `count` signals. */
async function hearing(heard: ClusterSignal[], count: number): Promise<ClusterSignal[]> {
  for (let waited = 0; heard.length < count && waited < 5_000; waited += 20) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return heard;
}

/**
 * LeaseStore and ClusterChannel: what several servers on one database rely on. The signals are
 * checked between two stores opened on the same database (two servers), where the dialect allows
 * several servers (not SQLite).
 */
export function clusterContract(open: OpenFreshStore): void {
  describe('leases', () => {
    const store = useStore(open);

    it('gives a lease to one holder at a time until it expires, and lets the holder renew it', async () => {
      const { leases } = store();
      expect(await leases.acquire('reaper', 'a', 1_000, 100)).toBe(true);
      expect(await leases.acquire('reaper', 'b', 1_050, 100)).toBe(false);
      expect(await leases.acquire('reaper', 'a', 1_090, 100)).toBe(true); // renewed to 1,190
      expect(await leases.acquire('reaper', 'b', 1_150, 100)).toBe(false);
      expect(await leases.acquire('reaper', 'b', 1_190, 100)).toBe(true); // expired: taken over
      expect(await leases.acquire('reaper', 'a', 1_200, 100)).toBe(false);
      expect(await leases.acquire('cron', 'a', 1_200, 100)).toBe(true); // names are independent
    });

    it('lets only one of several concurrent first takes win', async () => {
      const { leases } = store();
      const holders = ['a', 'b', 'c', 'd', 'e'];
      const won = await Promise.all(holders.map((h) => leases.acquire('watchdog', h, 5_000, 100)));
      expect(won.filter(Boolean)).toHaveLength(1);
    });

    it('frees a lease when its holder releases it, and ignores a release by anyone else', async () => {
      const { leases } = store();
      expect(await leases.acquire('release', 'a', 10_000, 60_000)).toBe(true);
      await leases.release('release', 'b');
      expect(await leases.acquire('release', 'b', 10_001, 60_000)).toBe(false);
      await leases.release('release', 'a');
      expect(await leases.acquire('release', 'b', 10_002, 60_000)).toBe(true);
    });
  });

  describe('signals between servers', () => {
    const opened = useOpenedStore(open);
    const others: Store[] = [];
    afterAll(async () => {
      for (const other of others) await other.close();
    });

    it('reaches the other servers of the database, not the sender, for every kind it carries', async () => {
      const second = await opened().another?.();
      if (second === undefined) {
        // One server only on this database (SQLite): the channel says so, and nothing is heard.
        const { signals } = opened().store;
        const heard: ClusterSignal[] = [];
        signals.listen((signal) => heard.push(signal));
        signals.send({ kind: 'queue' });
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect({ shared: signals.shared, heard }).toEqual({ shared: false, heard: [] });
        return;
      }
      others.push(second);
      const first = opened().store;
      const heardBySecond: ClusterSignal[] = [];
      const heardByFirst: ClusterSignal[] = [];
      second.signals.listen((signal) => heardBySecond.push(signal));
      first.signals.listen((signal) => heardByFirst.push(signal));
      // Listening starts asynchronously (a connection, a first read of the table).
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const sent: ClusterSignal[] = [
        { kind: 'queue' },
        { kind: 'build', build: 7 },
        { kind: 'log', step: 3, batch: 12 },
        { kind: 'log-end', step: 3, last: 99 },
      ];
      for (const signal of sent) first.signals.send(signal);
      const expected = sent.filter((s) => s.kind !== 'log' || first.signals.carriesLogs);
      // Sends are independent (PostgreSQL: on any pooled connection), so their order is not kept.
      const text = (signals: ClusterSignal[]) => signals.map((s) => JSON.stringify(s)).sort();
      expect(text(await hearing(heardBySecond, expected.length))).toEqual(text(expected));
      expect(heardByFirst).toEqual([]);
    });
  });
}
