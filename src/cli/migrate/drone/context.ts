import type { Repo } from '../../../core/repo.js';
import type { Store } from '../../../core/store.js';
import type { DroneFieldCipher } from './cipher.js';
import type { DroneDatabase } from './database.js';
import type { ImportReport } from './report.js';

/** What each kind's import reads, writes and learns for the kinds after it. */
export interface ImportContext {
  readonly drone: DroneDatabase;
  readonly tables: ReadonlySet<string>;
  readonly svc: Store;
  readonly cipher: DroneFieldCipher;
  /** svc's git provider (`scmc`, …), stored on the repositories it creates. */
  readonly scm: string;
  readonly report: ImportReport;
  /** Says how far the import got: a line per kind at least. */
  readonly progress: (line: string) => void;
  readonly now: () => number;
  /** Drone's user ids and the svc accounts they became or matched; logins for messages. */
  readonly users: Map<number, number>;
  readonly droneLogins: Map<number, string>;
  /** Drone's repository ids and the svc repositories they became or matched; slugs for messages. */
  readonly repos: Map<number, Repo>;
  readonly droneSlugs: Map<number, string>;
}

/** The flag that gives Drone's key, as messages name it. */
export const KEY_FLAG = '--drone-secret (DRONE_DATABASE_SECRET)';

/** Why a value that stayed sealed is left behind. */
export function sealedWhy(ctx: Pick<ImportContext, 'cipher'>): string {
  return ctx.cipher.hasKey
    ? `its value does not decrypt with ${KEY_FLAG}: it was encrypted with another key, or altered`
    : `its value is encrypted: give Drone’s key with ${KEY_FLAG}`;
}
