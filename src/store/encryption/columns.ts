import { DatabaseError } from '../../core/errors.js';
import { describeError } from '../dialects/errors.js';
import type { RowBinding, SecretCipher } from './cipher.js';

/**
 * Every column that holds a credential svc must read back, by table: with SVC_DATABASE_SECRET each
 * value is encrypted and bound to its row (table, column, id). API tokens are not here: they are
 * never read back, and stored as SHA-256 hashes whether or not there is a key.
 */
export const ENCRYPTED_COLUMNS = {
  secrets: ['data'],
  users: ['scm_token', 'scm_refresh'],
  repos: ['signing_key', 'hook_secret'],
  oidc_keys: ['private_key'],
} as const satisfies Record<string, readonly string[]>;

export type EncryptedTable = keyof typeof ENCRYPTED_COLUMNS;

/**
 * The plain value of a stored credential. A value that does not decrypt in its row — altered, or
 * copied from another row or column — is ENCRYPTED_VALUE_INVALID, naming where it is (never what):
 * the key itself was checked at start, so the value is what is wrong.
 */
export function openColumn(cipher: SecretCipher, at: RowBinding, stored: string): string {
  try {
    return cipher.open(stored, at);
  } catch (error) {
    throw new DatabaseError(
      'ENCRYPTED_VALUE_INVALID',
      `${at.table}.${at.column} of row ${at.id} cannot be decrypted with SVC_DATABASE_SECRET: it was altered, or copied from another row (${describeError(error)})`,
      { cause: error },
    );
  }
}

/** The stored forms of a row's credential columns (column → plain value), bound to the row. */
export function sealColumns<C extends string>(
  cipher: SecretCipher,
  table: EncryptedTable,
  id: number,
  plain: Record<C, string>,
): Record<C, string> {
  const sealed = {} as Record<C, string>;
  for (const column of Object.keys(plain) as C[]) {
    sealed[column] = cipher.seal(plain[column], { table, column, id });
  }
  return sealed;
}

/**
 * What an INSERT writes in the credential columns: their plain values without a key; with one,
 * empty placeholders, since the ciphertexts are bound to the id the insert makes. The caller
 * writes sealColumns(…) into the new row in the same transaction.
 */
export function insertedColumns<C extends string>(
  cipher: SecretCipher,
  plain: Record<C, string>,
): Record<C, string> {
  if (!cipher.encrypted) return plain;
  const empty = {} as Record<C, string>;
  for (const column of Object.keys(plain) as C[]) empty[column] = '';
  return empty;
}
