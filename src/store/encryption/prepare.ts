import type { Kysely } from 'kysely';
import { DatabaseError } from '../../core/errors.js';
import type { Tables } from '../tables.js';
import { inTransaction } from '../transaction.js';
import { AesGcmCipher, plainTextCipher, type SecretCipher } from './cipher.js';
import { convertColumns, describeConversion, type OldScheme } from './convert.js';
import { keyMatches, makeKeyCheck } from './key-check.js';

/** Meta rows: the encryption scheme of the credentials (absent: plain text) and the key check value. */
const ENCRYPTION = 'secrets_encryption';
const KEY_CHECK = 'secrets_key_check';
/**
 * The schemes, oldest first: `aes-256-gcm`, secret values only, bound to nothing (svc before schema
 * version 12); `aes-256-gcm-rows`, every column of ENCRYPTED_COLUMNS, each value bound to its row.
 */
const OLD_SCHEME = 'aes-256-gcm';
const SCHEME = 'aes-256-gcm-rows';

/**
 * Reconciles the database's credentials with the key svc was started with, and returns the cipher
 * the stores use. Must run under the migration lock, after the migrations, so two processes never
 * convert at once.
 * - encrypted database, no key: SECRET_KEY_MISSING; another key: SECRET_KEY_WRONG.
 * - a database encrypted the old way: every value rewritten bound to its row, and the provider
 *   tokens, signing keys and hook secrets encrypted, in one transaction.
 * - plain-text database and a key: every credential encrypted and the database marked encrypted in
 *   one transaction, so the meta table and the rows always agree.
 * - plain-text database, no key: credentials stay in plain text.
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
  if (scheme !== undefined && scheme !== SCHEME && scheme !== OLD_SCHEME) {
    throw new DatabaseError(
      'DATABASE_TOO_NEW',
      `the database's secrets are encrypted with "${scheme}", which this svc does not know: upgrade svc`,
    );
  }
  if (scheme === undefined) {
    return key === undefined ? plainTextCipher : convert(db, new AesGcmCipher(key), 'plain', log);
  }
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
  return scheme === SCHEME ? cipher : convert(db, cipher, OLD_SCHEME, log);
}

async function convert(
  db: Kysely<Tables>,
  cipher: AesGcmCipher,
  from: OldScheme,
  log: (msg: string) => void,
): Promise<SecretCipher> {
  const converted = await inTransaction(db, async (trx) => {
    const counts = await convertColumns(trx, cipher, from);
    if (from === 'plain') {
      await trx
        .insertInto('meta')
        .values([
          { name: ENCRYPTION, value: SCHEME },
          { name: KEY_CHECK, value: makeKeyCheck(cipher) },
        ])
        .execute();
    } else {
      await trx.updateTable('meta').set({ value: SCHEME }).where('name', '=', ENCRYPTION).execute();
    }
    return counts;
  });
  log(describeConversion(from, converted));
  return cipher;
}
