import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseDatabaseSecret } from '../../core/secret-key.js';
import type { NewSecret } from '../../core/secret.js';
import { connect } from '../dialects/connect.js';
import { openStore } from '../index.js';
import { testDialects, type TestDatabase } from '../../../test/support/databases.js';
import { AesGcmCipher } from './cipher.js';

const key = parseDatabaseSecret('0123456789abcdef0123456789abcdef') as Uint8Array;
const otherKey = new Uint8Array(randomBytes(32));

function secret(name: string, data: string): NewSecret {
  return {
    scope: { kind: 'global' },
    name,
    data,
    pullRequest: false,
    pullRequestPush: false,
    namespaceUid: '',
    environment: '',
  };
}

for (const dialect of testDialects()) {
  describe.skipIf(dialect.skip)(`secret encryption on ${dialect.name}`, () => {
    let database: TestDatabase;
    beforeEach(async () => {
      database = await dialect.create();
    });
    afterEach(async () => {
      await database.drop();
    });

    /** The secrets table as stored, by name. */
    async function stored(): Promise<Map<string, string>> {
      return new Map([...(await storedRows()).entries()].map(([name, row]) => [name, row.data]));
    }

    /** The secrets table as stored, by name, with ids. */
    async function storedRows(): Promise<Map<string, { id: number; data: string }>> {
      const { db } = await connect(database.datasource, () => undefined);
      try {
        const rows = await db.selectFrom('secrets').select(['id', 'name', 'data']).execute();
        return new Map(rows.map((row) => [row.name, { id: Number(row.id), data: row.data }]));
      } finally {
        await db.destroy();
      }
    }

    async function openWith(secretKey: Uint8Array | undefined, log: string[] = []) {
      return openStore({ datasource: database.datasource, secretKey, logger: (msg) => log.push(msg) });
    }

    it('stores values encrypted with the key and reads them back in plain text', async () => {
      const store = await openWith(key);
      const created = await store.secrets.create(secret('docker_password', 'hunter2-✓'));
      expect((await store.secrets.find(created.id))?.data).toBe('hunter2-✓');
      expect((await store.secrets.findName({ kind: 'global' }, 'docker_password'))?.data).toBe('hunter2-✓');
      await store.secrets.update({ ...created, data: 'rotated' });
      expect((await store.secrets.list({ kind: 'global' }))[0]?.data).toBe('rotated');
      await store.close();

      const raw = (await stored()).get('docker_password') ?? '';
      expect(raw).not.toContain('rotated');
      expect(Buffer.from(raw, 'base64')).toHaveLength(12 + 'rotated'.length + 16);
      const at = { table: 'secrets', column: 'data', id: created.id };
      expect(new AesGcmCipher(key).open(raw, at)).toBe('rotated');
      // Bound to its row: not readable as another row's value, nor as a value bound to nothing.
      expect(() => new AesGcmCipher(key).open(raw, { ...at, id: created.id + 1 })).toThrow();
      expect(() => new AesGcmCipher(key).open(raw)).toThrow();
    });

    it('refuses to open an encrypted database without the key or with another key', async () => {
      await (await openWith(key)).close();

      const missing = openWith(undefined);
      await expect(missing).rejects.toMatchObject({ code: 'SECRET_KEY_MISSING' });
      await expect(missing).rejects.toThrow('set SVC_DATABASE_SECRET to the key they were encrypted with');
      const wrong = openWith(otherKey);
      await expect(wrong).rejects.toMatchObject({ code: 'SECRET_KEY_WRONG' });
      await expect(wrong).rejects.toThrow(
        "SVC_DATABASE_SECRET is not the key the database's secrets were encrypted with",
      );

      await (await openWith(key)).close();
    });

    it('keeps values in plain text without a key, and encrypts them all when a key is first given', async () => {
      const plain = await openWith(undefined);
      for (const name of ['a', 'b', 'c']) await plain.secrets.create(secret(name, `value-${name}`));
      await plain.close();
      expect(await stored()).toEqual(
        new Map([
          ['a', 'value-a'],
          ['b', 'value-b'],
          ['c', 'value-c'],
        ]),
      );

      const log: string[] = [];
      const encrypted = await openWith(key, log);
      expect(log).toContain(
        'database: encrypted 3 existing secrets and the provider tokens of 0 users and the keys and hook secrets of 0 repositories with SVC_DATABASE_SECRET',
      );
      expect((await encrypted.secrets.list({ kind: 'global' })).map((s) => s.data)).toEqual([
        'value-a',
        'value-b',
        'value-c',
      ]);
      await encrypted.close();
      const cipher = new AesGcmCipher(key);
      for (const [name, { id, data }] of await storedRows()) {
        expect(data).not.toContain('value');
        expect(cipher.open(data, { table: 'secrets', column: 'data', id })).toBe(`value-${name}`);
      }

      const again: string[] = [];
      await (await openWith(key, again)).close();
      expect(again).toEqual([]);
      await expect(openWith(undefined)).rejects.toMatchObject({ code: 'SECRET_KEY_MISSING' });
    });
  });
}
