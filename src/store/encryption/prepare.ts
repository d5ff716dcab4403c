import type { Kysely } from 'kysely';
import { DatabaseError } from '../../core/errors.js';
import type { Tables } from '../tables.js';
import { inTransaction } from '../transaction.js';
import { AesGcmCipher, plainTextCipher, type SecretCipher } from './cipher.js';
import { keyMatches, makeKeyCheck } from './key-check.js';

/** Meta rows: the encryption scheme of the secrets (absent: plain text) and the key check value. */
const ENCRYPTION = 'secrets_encryption';
const KEY_CHECK = 'secrets_key_check';
const SCHEME = 'aes-256-gcm';

/**
 * Reconciles the database's secrets with the key svc was started with, and returns the cipher the
 * secret store uses. Must run under the migration lock, so two processes never encrypt at once.
 * - encrypted database, no key: SECRET_KEY_MISSING; another key: SECRET_KEY_WRONG.
 * - plain-text database and a key: every secret is encrypted and the database marked encrypted in
 *   one transaction, so the meta table and the secrets always agree.
 * - plain-text database, no key: secrets stay in plain text.
 */
export async function prepareSecretCipher(
  db: Kysely<Tables>,
  key: Uint8Array | undefined,
  log: (msg: string) => void,
): Promise<SecretCipher> {
  const meta = new Map(
    (await db.selectFrom('meta').select(['name', 'value']).execute()).map((row) => [row.name, row.value]),
  );
  const scheme = meta.get(ENCRYPTION);
  if (scheme !== undefined && scheme !== SCHEME) {
    throw new DatabaseError(
      'DATABASE_TOO_NEW',
      `the database's secrets are encrypted with "${scheme}", which this svc does not know: upgrade svc`,
    );
  }
  if (scheme === SCHEME) {
    if (key === undefined) {
      throw new DatabaseError(
        'SECRET_KEY_MISSING',
        "the database's secrets are encrypted: set SVC_DATABASE_SECRET to the key they were encrypted with",
      );
    }
    const cipher = new AesGcmCipher(key);
    if (!keyMatches(cipher, meta.get(KEY_CHECK) ?? '')) {
      throw new DatabaseError(
        'SECRET_KEY_WRONG',
        "SVC_DATABASE_SECRET is not the key the database's secrets were encrypted with: set it to that key",
      );
    }
    return cipher;
  }
  if (key === undefined) return plainTextCipher;
  return encryptExisting(db, new AesGcmCipher(key), log);
}

async function encryptExisting(
  db: Kysely<Tables>,
  cipher: AesGcmCipher,
  log: (msg: string) => void,
): Promise<SecretCipher> {
  const count = await inTransaction(db, async (trx) => {
    const secrets = await trx.selectFrom('secrets').select(['id', 'data']).execute();
    for (const secret of secrets) {
      await trx
        .updateTable('secrets')
        .set({ data: cipher.seal(secret.data) })
        .where('id', '=', secret.id)
        .execute();
    }
    await trx
      .insertInto('meta')
      .values([
        { name: ENCRYPTION, value: SCHEME },
        { name: KEY_CHECK, value: makeKeyCheck(cipher) },
      ])
      .execute();
    return secrets.length;
  });
  log(
    count === 0
      ? 'database: secrets will be encrypted with SVC_DATABASE_SECRET'
      : `database: encrypted the ${count} existing secret${count === 1 ? '' : 's'} with SVC_DATABASE_SECRET`,
  );
  return cipher;
}
