import type { DroneFieldCipher } from './cipher.js';
import { KEY_FLAG } from './context.js';
import type { DroneDatabase } from './database.js';
import { bytes } from './values.js';

/** Drone's encrypted columns: secret values, and users' provider tokens (when Drone encrypted them). */
const ENCRYPTED: readonly { table: string; columns: readonly string[] }[] = [
  { table: 'secrets', columns: ['secret_data'] },
  { table: 'orgsecrets', columns: ['secret_data'] },
  { table: 'users', columns: ['user_oauth_token', 'user_oauth_refresh'] },
];

/**
 * Checks the key against Drone's encrypted values before anything is written: a missing key, or
 * one under which none of them decrypts, is the operator's mistake, not a reason to import
 * secrets as skipped one by one. Returns the message to stop with, or undefined.
 */
export async function checkDroneKey(
  drone: DroneDatabase,
  tables: ReadonlySet<string>,
  cipher: DroneFieldCipher,
): Promise<string | undefined> {
  let sealed = 0;
  let decrypted = 0;
  for (const { table, columns } of ENCRYPTED) {
    if (!tables.has(table)) continue;
    for (const row of await drone.select(`select ${columns.join(', ')} from ${table}`)) {
      for (const column of columns) {
        const opened = cipher.open(bytes(row, column));
        if (opened.kind === 'sealed') sealed += 1;
        if (opened.kind === 'decrypted') decrypted += 1;
      }
    }
  }
  if (sealed === 0 || decrypted > 0) return undefined;
  if (!cipher.hasKey) {
    return `Drone’s database holds ${sealed} encrypted values (secrets or provider tokens): give the key Drone’s server ran with as ${KEY_FLAG}`;
  }
  return `${KEY_FLAG} is not the key Drone encrypted its values with: none of the ${sealed} encrypted values decrypts with it`;
}
