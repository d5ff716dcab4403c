import { describe, expect, it } from 'vitest';
import type { NewSigningKey } from '../../core/oidc.js';
import { unique, useOpenedStore, type OpenFreshStore } from './fixtures.case.js';

/** A key of `slot` as the keyring makes them; the store does not read the key material. */
function newKey(slot: string, overrides: Partial<NewSigningKey> = {}): NewSigningKey {
  const kid = unique('kid-');
  return {
    kid,
    slot,
    algorithm: 'RS256',
    publicJwk: { kty: 'RSA', n: `n-of-${kid}`, e: 'AQAB' },
    privateKey: `-----BEGIN PRIVATE KEY-----\nprivate-${kid}\n-----END PRIVATE KEY-----\n`,
    signsFrom: 1_000,
    signsUntil: 2_000,
    expires: 3_000,
    created: 900,
    ...overrides,
  };
}

/** SigningKeyStore: one key per rotation period, whoever makes it; publication until expiry. */
export function oidcKeysContract(open: OpenFreshStore): void {
  describe('OIDC signing keys', () => {
    const opened = useOpenedStore(open);
    const store = () => opened().store;

    it('stores a key with its private half and finds it by its slot', async () => {
      const slot = unique('slot-');
      const key = newKey(slot);
      const created = await store().oidcKeys.create(key);
      expect(created).toEqual({ ...key, id: created.id });
      expect(await store().oidcKeys.findSlot(slot)).toEqual(created);
      expect(await store().oidcKeys.findSlot(unique('slot-'))).toBeUndefined();
    });

    it('keeps the first key of a slot: a later or concurrent one gets that key back', async () => {
      const slot = unique('slot-');
      const first = await store().oidcKeys.create(newKey(slot));
      const again = await store().oidcKeys.create(newKey(slot));
      expect(again).toEqual(first);

      const racing = unique('slot-');
      const keys = await Promise.all(
        Array.from({ length: 4 }, () => store().oidcKeys.create(newKey(racing))),
      );
      expect(new Set(keys.map((key) => key.kid)).size).toBe(1);
      expect(await store().oidcKeys.findSlot(racing)).toEqual(keys[0]);
    });

    it('agrees with another server on the same database about a slot', async () => {
      const another = opened().another;
      if (another === undefined) return; // SQLite: one server per database
      const second = await another();
      try {
        const slot = unique('slot-');
        const [mine, theirs] = await Promise.all([
          store().oidcKeys.create(newKey(slot)),
          second.oidcKeys.create(newKey(slot)),
        ]);
        expect(theirs.kid).toBe(mine.kid);
        expect(theirs.privateKey).toBe(mine.privateKey);
      } finally {
        await second.close();
      }
    });

    it('lists the keys not yet expired, newest first, without private halves; deletes expired ones', async () => {
      const base = 10_000_000;
      const old = await store().oidcKeys.create(
        newKey(unique('slot-'), { signsFrom: base, signsUntil: base + 10, expires: base + 20 }),
      );
      const current = await store().oidcKeys.create(
        newKey(unique('slot-'), { signsFrom: base + 10, signsUntil: base + 20, expires: base + 30 }),
      );
      const next = await store().oidcKeys.create(
        newKey(unique('slot-'), { signsFrom: base + 20, signsUntil: base + 30, expires: base + 40 }),
      );
      const published = (await store().oidcKeys.listPublished(base + 15)).filter((key) =>
        [old.kid, current.kid, next.kid].includes(key.kid),
      );
      expect(published.map((key) => key.kid)).toEqual([next.kid, current.kid, old.kid]);
      expect(published[0]).not.toHaveProperty('privateKey');
      const { privateKey: _, ...publicPart } = next;
      expect(published[0]).toEqual(publicPart);

      const later = (await store().oidcKeys.listPublished(base + 25)).map((key) => key.kid);
      expect(later).not.toContain(old.kid);
      expect(later).toContain(current.kid);

      expect(await store().oidcKeys.deleteExpired(base + 21)).toBeGreaterThanOrEqual(1);
      expect(await store().oidcKeys.findSlot(old.slot)).toBeUndefined();
      expect(await store().oidcKeys.findSlot(current.slot)).toEqual(current);
    });
  });
}
