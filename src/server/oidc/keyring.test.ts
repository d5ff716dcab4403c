import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../core/store.js';
import { openStore } from '../../store/index.js';
import { testDialects, type TestDatabase } from '../../../test/support/databases.js';
import { generateKeyMaterial } from './jwt.js';
import { CLOCK_LEEWAY, OidcKeyring } from './keyring.js';

const DAY = 24 * 3_600_000;
const HOUR = 3_600_000;
/** A rotation boundary: the start of day 20,000 since the epoch. */
const BOUNDARY = 20_000 * DAY;

for (const dialect of testDialects()) {
  describe.skipIf(dialect.skip)(`OIDC signing keys on ${dialect.name}`, () => {
    let database: TestDatabase;
    const stores: Store[] = [];
    const open = async () => {
      const store = await openStore({ datasource: database.datasource });
      stores.push(store);
      return store;
    };
    beforeEach(async () => {
      database = await dialect.create();
    });
    afterEach(async () => {
      for (const store of stores.splice(0)) await store.close();
      await database.drop();
    });

    it('rotates every SVC_OIDC_KEY_ROTATION: the next key is published a period ahead, an old one until its last token expired', async () => {
      const store = await open();
      let now = BOUNDARY - 10 * 60_000;
      const keyring = new OidcKeyring({
        keys: store.oidcKeys,
        rotation: DAY,
        maxLifetime: HOUR,
        now: () => now,
      });
      const first = (await keyring.active()).key;
      expect(first).toMatchObject({ signsFrom: BOUNDARY - DAY, signsUntil: BOUNDARY });
      expect(first.expires).toBe(BOUNDARY + HOUR + CLOCK_LEEWAY);
      const before = (await keyring.published()).map((key) => key.kid);
      expect(before).toHaveLength(2);
      expect(before[1]).toBe(first.kid);
      const next = before[0];

      now = BOUNDARY + 20 * 60_000;
      const second = (await keyring.active()).key;
      expect(second.kid).toBe(next);
      expect((await keyring.published()).map((key) => key.kid)).toEqual([
        expect.any(String),
        second.kid,
        first.kid,
      ]);

      now = first.expires + 1;
      expect((await keyring.published()).map((key) => key.kid)).not.toContain(first.kid);
      // Deleted when the next period starts.
      now = BOUNDARY + DAY;
      await keyring.active();
      expect(await store.oidcKeys.findSlot(first.slot)).toBeUndefined();
    });

    it('makes one key per period however many requests ask at once', async () => {
      const store = await open();
      let made = 0;
      const keyring = new OidcKeyring({
        keys: store.oidcKeys,
        rotation: DAY,
        maxLifetime: HOUR,
        now: () => BOUNDARY,
        generate: () => {
          made += 1;
          return generateKeyMaterial();
        },
      });
      const keys = await Promise.all(Array.from({ length: 5 }, () => keyring.active()));
      expect(new Set(keys.map((active) => active.key.kid)).size).toBe(1);
      expect(made).toBe(2); // this period's and the next one's
    });

    it.skipIf(dialect.name === 'SQLite')(
      'lets several servers of one database sign with the same key',
      async () => {
        const rings = await Promise.all(
          [0, 1, 2].map(
            async () =>
              new OidcKeyring({
                keys: (await open()).oidcKeys,
                rotation: DAY,
                maxLifetime: HOUR,
                now: () => BOUNDARY,
              }),
          ),
        );
        const active = await Promise.all(rings.map((ring) => ring.active()));
        expect(new Set(active.map(({ key }) => key.kid)).size).toBe(1);
        const published = await Promise.all(
          rings.map(async (ring) => (await ring.published()).map((k) => k.kid)),
        );
        expect(published[1]).toEqual(published[0]);
        expect(published[2]).toEqual(published[0]);
        expect(published[0]).toHaveLength(2);
      },
    );
  });
}
