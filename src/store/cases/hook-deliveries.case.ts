import { afterAll, describe, expect, it } from 'vitest';
import { NotFoundError } from '../../core/errors.js';
import type { Store } from '../../core/store.js';
import { newRepo, unique, useOpenedStore, type OpenFreshStore } from './fixtures.case.js';

/** HookDeliveryStore: a delivery's keys are claimed once per repository, all or none, across servers. */
export function hookDeliveriesContract(open: OpenFreshStore): void {
  describe('hook deliveries', () => {
    const opened = useOpenedStore(open);
    const store = () => opened().store;
    const others: Store[] = [];
    afterAll(async () => {
      for (const other of others) await other.close();
    });
    const repo = async () => (await store().repos.create(newRepo())).id;

    it('claims a delivery once, and refuses every later claim that shares one of its keys', async () => {
      const id = await repo();
      const [delivery, body] = [unique('delivery-'), unique('body-')];
      expect(await store().hookDeliveries.claim(id, [delivery, body], 1_000)).toBe(true);
      expect(await store().hookDeliveries.claim(id, [delivery, body], 1_001)).toBe(false);
      // The same body under a new delivery id (a header rewritten by whoever replays it): refused.
      const fresh = unique('delivery-');
      expect(await store().hookDeliveries.claim(id, [fresh, body], 1_002)).toBe(false);
      // …and the refused claim recorded nothing: its new key is still free.
      expect(await store().hookDeliveries.claim(id, [fresh], 1_003)).toBe(true);
      // A key repeated within one claim is one key.
      const twice = unique('twice-');
      expect(await store().hookDeliveries.claim(id, [twice, twice], 1_004)).toBe(true);
    });

    it('keeps each repository’s keys apart', async () => {
      const [first, second] = [await repo(), await repo()];
      const key = unique('shared-');
      expect(await store().hookDeliveries.claim(first, [key], 1)).toBe(true);
      expect(await store().hookDeliveries.claim(second, [key], 1)).toBe(true);
      expect(await store().hookDeliveries.claim(first, [key], 2)).toBe(false);
    });

    it('forgets keys so that the delivery can be claimed again, and ignores keys it never had', async () => {
      const id = await repo();
      const keys = [unique('delivery-'), unique('body-')];
      expect(await store().hookDeliveries.claim(id, keys, 5)).toBe(true);
      await store().hookDeliveries.forget(id, [...keys, unique('never-')]);
      await store().hookDeliveries.forget(id, []);
      expect(await store().hookDeliveries.claim(id, keys, 6)).toBe(true);
    });

    it('prunes the keys recorded before a time, counting them, and keeps the newer ones', async () => {
      const id = await repo();
      const [old, recent] = [unique('old-'), unique('recent-')];
      await store().hookDeliveries.claim(id, [old], 10_000);
      await store().hookDeliveries.claim(id, [recent], 20_000);
      expect(await store().hookDeliveries.prune(10_001)).toBeGreaterThanOrEqual(1);
      expect(await store().hookDeliveries.prune(10_001)).toBe(0);
      expect(await store().hookDeliveries.claim(id, [old], 30_000)).toBe(true);
      expect(await store().hookDeliveries.claim(id, [recent], 30_000)).toBe(false);
    });

    it('refuses keys of a repository that does not exist, and drops them with their repository', async () => {
      await expect(store().hookDeliveries.claim(987_654, [unique('k-')], 1)).rejects.toBeInstanceOf(
        NotFoundError,
      );
      const id = await repo();
      const key = unique('gone-');
      await store().hookDeliveries.claim(id, [key], 1);
      await store().repos.delete(id);
      const again = await store().repos.create(newRepo());
      expect(await store().hookDeliveries.claim(again.id, [key], 2)).toBe(true);
    });

    it('lets exactly one of many simultaneous claims of a delivery win, from two servers', async () => {
      const second = (await opened().another?.()) ?? store();
      if (second !== store()) others.push(second);
      const id = await repo();
      const keys = [unique('race-'), unique('race-body-')];
      const claims = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          (i % 2 === 0 ? store() : second).hookDeliveries.claim(id, i % 3 === 0 ? keys : [keys[1] ?? ''], i),
        ),
      );
      expect(claims.filter(Boolean)).toHaveLength(1);
    });
  });
}
