import { resolve } from 'node:path';
import { loadSettings, type Env, type ServerSettings } from '../../config/index.js';
import type { Datasource } from '../../core/datasource.js';
import { DatabaseError, InvalidSettingsError } from '../../core/errors.js';
import { parseDatabaseSecret } from '../../core/secret-key.js';
import type { Store } from '../../core/store.js';
import { openStore } from '../../store/index.js';
import type { CommandIO } from '../io.js';
import { gitProvider } from '../server/provider.js';
import { parseDroneMigrateArgs } from './drone/args.js';
import { DroneFieldCipher, parseDroneSecret } from './drone/cipher.js';
import { DroneDatabaseError, openDroneDatabase, type DroneDatabase } from './drone/database.js';
import { describeDatasource, parseDroneDatasource, sameDatabase } from './drone/datasource.js';
import { checkDrone, DroneKeyError, importDrone, type CheckedDrone } from './drone/importer.js';
import { KINDS } from './drone/report.js';
import { DRONE_USAGE } from './drone/usage.js';

/** `svc migrate drone`: see DRONE_USAGE (./drone/usage.ts). */
export async function migrateDroneCommand(args: readonly string[], env: Env, io: CommandIO): Promise<number> {
  const fail = (message: string, code: number): number => {
    io.stderr(`svc migrate drone: ${message}\n`);
    return code;
  };
  const parsed = parseDroneMigrateArgs(args, env);
  if (typeof parsed === 'string') return fail(`${parsed}\n\n${DRONE_USAGE}`, 2);
  const from = parseDroneDatasource(parsed.from, parsed.fromDriver, io.cwd);
  if (typeof from === 'string') return fail(from, 2);
  const droneKey = parsed.droneSecret === undefined ? undefined : parseDroneSecret(parsed.droneSecret);
  if (typeof droneKey === 'string') return fail(`--drone-secret (DRONE_DATABASE_SECRET): ${droneKey}`, 2);
  const target = svcTarget(env, io);
  if (typeof target === 'number') return target;
  if (sameDatabase(from, target.settings.SVC_DATABASE_DATASOURCE, io.cwd)) {
    return fail(
      `--from and SVC_DATABASE_DATASOURCE name the same database; svc's tables share names with Drone's, so give svc a database of its own`,
      2,
    );
  }
  let drone: DroneDatabase;
  try {
    drone = await openDroneDatabase(from);
  } catch (error) {
    if (error instanceof DroneDatabaseError) return fail(error.message, 1);
    throw error;
  }
  try {
    let checked: CheckedDrone;
    try {
      checked = await checkDrone(drone, new DroneFieldCipher(droneKey));
    } catch (error) {
      if (error instanceof DroneKeyError || error instanceof DroneDatabaseError)
        return fail(error.message, 1);
      throw error;
    }
    const datasource: Datasource = parsed.dryRun
      ? { driver: 'embedded_sql', path: ':memory:' }
      : target.settings.SVC_DATABASE_DATASOURCE;
    const store = await openTarget(datasource, target.secretKey, io);
    if (typeof store === 'number') return store;
    try {
      const progress = (line: string) => io.stderr(`svc migrate drone: ${line}\n`);
      const report = await importDrone(checked, store, {
        scm: target.scm,
        history: parsed.history,
        saveTemplates: parsed.saveTemplates === undefined ? undefined : resolve(io.cwd, parsed.saveTemplates),
        progress,
      });
      const into = parsed.dryRun
        ? `a throwaway database (dry run: nothing was written to ${describeDatasource(target.settings.SVC_DATABASE_DATASOURCE)})`
        : describeDatasource(datasource);
      const kinds = KINDS.filter((kind) => parsed.history || (kind !== 'builds' && kind !== 'logs'));
      io.stdout(
        `From Drone's ${drone.description.replace(/^the /, '')} into ${into}:\n${report.render(kinds)}`,
      );
      return 0;
    } catch (error) {
      if (error instanceof DroneKeyError || error instanceof DroneDatabaseError)
        return fail(error.message, 1);
      if (error instanceof DatabaseError) return fail(`svc's database: ${error.message}`, 1);
      throw error;
    } finally {
      await store.close();
    }
  } finally {
    await drone.close();
  }
}

interface SvcTarget {
  readonly settings: ServerSettings;
  readonly secretKey: Uint8Array | undefined;
  readonly scm: string;
}

/** svc's server settings, its database key, and its git provider's name; an exit code when they do not do. */
function svcTarget(env: Env, io: CommandIO): SvcTarget | number {
  let settings: ServerSettings;
  try {
    ({ settings } = loadSettings('server', env, { cwd: io.cwd }));
  } catch (error) {
    if (!(error instanceof InvalidSettingsError)) throw error;
    for (const problem of error.problems) io.stderr(`${problem.setting}: ${problem.message}\n`);
    return 2;
  }
  const chosen = gitProvider(settings);
  if ('error' in chosen) {
    io.stderr(`${chosen.error}\n`);
    return 2;
  }
  if (chosen.provider === undefined) {
    io.stderr(
      "svc migrate drone: svc's git provider is not configured (docs/settings.md); repositories are stored with it, so set the provider Drone used first\n",
    );
    return 2;
  }
  let secretKey: Uint8Array | undefined;
  if (settings.SVC_DATABASE_SECRET !== null) {
    const key = parseDatabaseSecret(settings.SVC_DATABASE_SECRET);
    // loadSettings has validated the key already; this only narrows the type.
    if (typeof key === 'string') throw new Error(`SVC_DATABASE_SECRET: ${key}`);
    secretKey = key;
  }
  return { settings, secretKey, scm: chosen.provider.name };
}

async function openTarget(
  datasource: Datasource,
  secretKey: Uint8Array | undefined,
  io: CommandIO,
): Promise<Store | number> {
  try {
    return await openStore({
      datasource,
      secretKey,
      logger: (message) =>
        io.stderr(`svc migrate drone: svc's database: ${message.replace(/^database: /, '')}\n`),
    });
  } catch (error) {
    if (error instanceof InvalidSettingsError) {
      for (const problem of error.problems) io.stderr(`${problem.setting}: ${problem.message}\n`);
      return 2;
    }
    if (!(error instanceof DatabaseError)) throw error;
    io.stderr(`svc migrate drone: ${error.message}\n`);
    return 1;
  }
}
