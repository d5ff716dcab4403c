import type { Kysely } from 'kysely';
import { DatabaseError } from '../../core/errors.js';
import { describeError } from '../dialects/errors.js';
import type { Tables } from '../tables.js';
import type { AesGcmCipher } from './cipher.js';
import { ENCRYPTED_COLUMNS, type EncryptedTable } from './columns.js';

/** What the database held before: plain text, or secret values encrypted bound to nothing. */
export type OldScheme = 'plain' | 'aes-256-gcm';

/** Rows rewritten, by table. */
export type Converted = Record<EncryptedTable, number>;

/**
 * Rewrites every credential column (ENCRYPTED_COLUMNS) encrypted with `cipher` and bound to its
 * row. From `plain`, every value is plain text; from `aes-256-gcm`, secret values are encrypted
 * bound to nothing (they are decrypted first) and the other columns are plain text, as the svc
 * before schema version 12 wrote them. Runs in the caller's transaction.
 */
export async function convertColumns(
  trx: Kysely<Tables>,
  cipher: AesGcmCipher,
  from: OldScheme,
): Promise<Converted> {
  const converted: Converted = { secrets: 0, users: 0, repos: 0, oidc_keys: 0 };
  const raw = trx as unknown as Kysely<Record<string, Record<string, string | number>>>;
  for (const [table, columns] of Object.entries(ENCRYPTED_COLUMNS) as [EncryptedTable, readonly string[]][]) {
    const rows = await raw
      .selectFrom(table)
      .select(['id', ...columns])
      .execute();
    for (const row of rows) {
      const id = Number(row.id);
      const sealed: Record<string, string> = {};
      for (const column of columns) {
        const stored = String(row[column] ?? '');
        const plain =
          from === 'aes-256-gcm' && table === 'secrets' ? openUnbound(cipher, stored, id) : stored;
        sealed[column] = cipher.seal(plain, { table, column, id });
      }
      await raw.updateTable(table).set(sealed).where('id', '=', id).execute();
    }
    converted[table] = rows.length;
  }
  return converted;
}

function openUnbound(cipher: AesGcmCipher, stored: string, id: number): string {
  try {
    return cipher.open(stored);
  } catch (error) {
    throw new DatabaseError(
      'ENCRYPTED_VALUE_INVALID',
      `secrets.data of row ${id} cannot be decrypted with SVC_DATABASE_SECRET: ${describeError(error)}`,
      { cause: error },
    );
  }
}

/** The log line of a conversion. */
export function describeConversion(from: OldScheme, converted: Converted): string {
  const { secrets, users, repos, oidc_keys: oidcKeys } = converted;
  const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  const keys = oidcKeys === 0 ? '' : `, ${plural(oidcKeys, 'OIDC signing key', 'OIDC signing keys')}`;
  const others = `the provider tokens of ${plural(users, 'user', 'users')}${keys} and the keys and hook secrets of ${plural(repos, 'repository', 'repositories')}`;
  if (from === 'aes-256-gcm') {
    return `database: bound ${plural(secrets, 'encrypted secret value', 'encrypted secret values')} to their rows, and encrypted ${others} with SVC_DATABASE_SECRET`;
  }
  if (secrets + users + repos + oidcKeys === 0)
    return 'database: secrets and credentials will be encrypted with SVC_DATABASE_SECRET';
  return `database: encrypted ${plural(secrets, 'existing secret', 'existing secrets')} and ${others} with SVC_DATABASE_SECRET`;
}
