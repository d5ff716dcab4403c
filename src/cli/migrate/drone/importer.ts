import type { Store } from '../../../core/store.js';
import type { DroneFieldCipher } from './cipher.js';
import type { ImportContext } from './context.js';
import { DroneDatabaseError, reason, type DroneDatabase } from './database.js';
import { importCrons } from './import-crons.js';
import { importHistory } from './import-history.js';
import { importPerms } from './import-perms.js';
import { importRepos } from './import-repos.js';
import { importSecrets } from './import-secrets.js';
import { importTemplates } from './import-templates.js';
import { importUsers } from './import-users.js';
import { checkDroneKey } from './key-check.js';
import { ImportReport } from './report.js';

export interface DroneImportOptions {
  /** svc's git provider (`scmc`, …), stored on the repositories brought across. */
  readonly scm: string;
  /** Also builds, stages, steps and logs. */
  readonly history: boolean;
  /** Where to write Drone's templates as files too (for svc exec --template-dir). */
  readonly saveTemplates?: string | undefined;
  readonly progress: (line: string) => void;
  readonly now?: () => number;
}

/** Drone's key does not open its encrypted values; the message names the flag and the variable. */
export class DroneKeyError extends Error {}

/** Tables every Drone 1.x and 2.x database has (templates and organization secrets came later). */
const DRONE_TABLES = ['users', 'repos', 'perms', 'secrets', 'cron', 'builds', 'stages', 'steps', 'logs'];

/** Drone's database, checked: it is Drone's, and the key opens its encrypted values. */
export interface CheckedDrone {
  readonly database: DroneDatabase;
  readonly tables: ReadonlySet<string>;
  readonly cipher: DroneFieldCipher;
}

/**
 * Checks that the database is Drone's (DroneDatabaseError) and that the key opens its encrypted
 * values (DroneKeyError): run before svc's database is opened, so that neither mistake writes there.
 */
export async function checkDrone(database: DroneDatabase, cipher: DroneFieldCipher): Promise<CheckedDrone> {
  const tables = await droneTables(database);
  const keyProblem = await checkDroneKey(database, tables, cipher);
  if (keyProblem !== undefined) throw new DroneKeyError(keyProblem);
  return { database, tables, cipher };
}

/**
 * Brings Drone's database into svc's, kind by kind: users, repositories (with their build
 * counters), permissions, secrets, organization secrets, cron jobs, templates (as files), and with
 * `history` builds with their logs. Reads Drone's database only. What svc already has is left as
 * it is: a second run finds everything present.
 */
export async function importDrone(
  { database: drone, tables, cipher }: CheckedDrone,
  svc: Store,
  options: DroneImportOptions,
): Promise<ImportReport> {
  const ctx: ImportContext = {
    drone,
    tables,
    svc,
    cipher,
    scm: options.scm,
    report: new ImportReport(),
    progress: options.progress,
    now: options.now ?? Date.now,
    users: new Map(),
    droneLogins: new Map(),
    repos: new Map(),
    droneSlugs: new Map(),
  };
  await importUsers(ctx);
  await importRepos(ctx);
  await importPerms(ctx);
  await importSecrets(ctx);
  await importCrons(ctx);
  await importTemplates(ctx, options.saveTemplates);
  if (options.history) await importHistory(ctx);
  return ctx.report;
}

async function droneTables(drone: DroneDatabase): Promise<Set<string>> {
  const tables = await drone.tables();
  const missing = DRONE_TABLES.filter((table) => !tables.has(table));
  if (missing.length > 0) {
    throw new DroneDatabaseError(
      `${drone.description} is not a Drone database: it has no table ${missing.join(', ')}`,
    );
  }
  try {
    await drone.select('select user_id, user_login, user_hash from users where 1 = 0');
  } catch (error) {
    throw new DroneDatabaseError(
      `${drone.description} is not a Drone database: its users table is not Drone's (${reason(error)})`,
    );
  }
  return tables;
}
