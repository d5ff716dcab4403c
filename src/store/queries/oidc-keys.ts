import type { Kysely, Selectable } from 'kysely';
import type { NewSigningKey, PublishedKey, SigningKey, SigningKeyStore } from '../../core/oidc.js';
import type { Connection, DialectAdapter } from '../dialects/adapter.js';
import type { SecretCipher } from '../encryption/cipher.js';
import { insertedColumns, openColumn, sealColumns } from '../encryption/columns.js';
import type { OidcKeyRow, Tables } from '../tables.js';
import { inTransaction } from '../transaction.js';
import { changed, insertId, parseMap } from './rows.js';

const PUBLIC_COLUMNS = [
  'id',
  'kid',
  'slot',
  'algorithm',
  'public_jwk',
  'signs_from',
  'signs_until',
  'expires',
  'created',
] as const;

function toPublished(row: Pick<Selectable<OidcKeyRow>, (typeof PUBLIC_COLUMNS)[number]>): PublishedKey {
  return {
    id: Number(row.id),
    kid: row.kid,
    slot: row.slot,
    algorithm: row.algorithm,
    publicJwk: parseMap(row.public_jwk, `OIDC key ${row.kid}`),
    signsFrom: Number(row.signs_from),
    signsUntil: Number(row.signs_until),
    expires: Number(row.expires),
    created: Number(row.created),
  };
}

/**
 * Signing keys in `oidc_keys`. The slot's unique constraint decides which of several servers'
 * keys for one rotation period is THE key: the others' inserts fail and they read the winner's.
 * Private keys pass through the cipher chosen at open, bound to their row.
 */
export class SqlSigningKeyStore implements SigningKeyStore {
  readonly #db: Kysely<Tables>;
  readonly #adapter: DialectAdapter;
  readonly #cipher: SecretCipher;

  constructor({ db, adapter }: Connection, cipher: SecretCipher) {
    this.#db = db;
    this.#adapter = adapter;
    this.#cipher = cipher;
  }

  async findSlot(slot: string): Promise<SigningKey | undefined> {
    const row = await this.#db
      .selectFrom('oidc_keys')
      .selectAll()
      .where('slot', '=', slot)
      .executeTakeFirst();
    return row && this.#toKey(row);
  }

  async create(key: NewSigningKey): Promise<SigningKey> {
    const plain = { private_key: key.privateKey };
    const values = {
      kid: key.kid,
      slot: key.slot,
      algorithm: key.algorithm,
      public_jwk: JSON.stringify(key.publicJwk),
      ...insertedColumns(this.#cipher, plain),
      signs_from: key.signsFrom,
      signs_until: key.signsUntil,
      expires: key.expires,
      created: key.created,
    };
    try {
      const id = await inTransaction(this.#db, async (trx) => {
        const id = await insertId(this.#adapter, trx.insertInto('oidc_keys').values(values));
        if (this.#cipher.encrypted) {
          await trx
            .updateTable('oidc_keys')
            .set(sealColumns(this.#cipher, 'oidc_keys', id, plain))
            .where('id', '=', id)
            .execute();
        }
        return id;
      });
      return { ...key, id };
    } catch (error) {
      if (!this.#adapter.isUniqueViolation(error)) throw error;
      // Another server made this period's key first: everyone signs with that one.
      const winner = await this.findSlot(key.slot);
      if (winner === undefined) throw error;
      return winner;
    }
  }

  async listPublished(now: number): Promise<PublishedKey[]> {
    const rows = await this.#db
      .selectFrom('oidc_keys')
      .select(PUBLIC_COLUMNS)
      .where('expires', '>', now)
      .orderBy('signs_from', 'desc')
      .orderBy('id', 'desc')
      .execute();
    return rows.map(toPublished);
  }

  async deleteExpired(before: number): Promise<number> {
    return changed(
      await this.#db.deleteFrom('oidc_keys').where('expires', '<', before).executeTakeFirstOrThrow(),
    );
  }

  #toKey(row: Selectable<OidcKeyRow>): SigningKey {
    const at = { table: 'oidc_keys', column: 'private_key', id: Number(row.id) };
    return { ...toPublished(row), privateKey: openColumn(this.#cipher, at, row.private_key) };
  }
}
