import { isAbsolute, resolve } from 'node:path';
import { datasourceShape, parseDatasource } from '../../../config/datasource.js';
import type { Datasource } from '../../../core/datasource.js';

/** Drone's names for its database drivers (DRONE_DATABASE_DRIVER). */
export const DRONE_DRIVERS = ['sqlite3', 'mysql', 'postgres'] as const;
export type DroneDriver = (typeof DRONE_DRIVERS)[number];

const SVC_DRIVER = { sqlite3: 'embedded_sql', mysql: 'sql_a', postgres: 'sql_b' } as const;

/**
 * Where Drone's database is, parsed with svc's own datasource rules (Drone's datasources have the
 * same forms). Without a driver, the form says which: a postgres:// URL, a MySQL `…@tcp(…)/…`, or
 * else a SQLite file. Returns a message naming --from or --from-driver when it does not fit.
 */
export function parseDroneDatasource(
  value: string,
  driver: string | undefined,
  cwd: string,
): Datasource | string {
  if (value.trim() === '') return '--from: Drone’s datasource is required (or DRONE_DATABASE_DATASOURCE)';
  const chosen = driver ?? guessDriver(value);
  if (!isDroneDriver(chosen)) {
    return `--from-driver: unknown driver "${chosen}"; expected one of ${DRONE_DRIVERS.join(', ')}`;
  }
  const svcDriver = SVC_DRIVER[chosen];
  const parsed = parseDatasource(svcDriver, value);
  if (typeof parsed === 'string') {
    return `--from: not a ${chosen} datasource: ${parsed} (a ${chosen} datasource is ${datasourceShape(svcDriver)})`;
  }
  if (parsed.driver === 'embedded_sql' && !isAbsolute(parsed.path))
    return { ...parsed, path: resolve(cwd, parsed.path) };
  return parsed;
}

function guessDriver(value: string): string {
  if (/^postgres(ql)?:\/\//.test(value)) return 'postgres';
  if (/@tcp\(/.test(value)) return 'mysql';
  return 'sqlite3';
}

function isDroneDriver(value: string): value is DroneDriver {
  return (DRONE_DRIVERS as readonly string[]).includes(value);
}

/** The database for messages, without its password. */
export function describeDatasource(datasource: Datasource): string {
  switch (datasource.driver) {
    case 'embedded_sql':
      return `the SQLite database ${datasource.path}`;
    case 'sql_a':
      return `the MySQL database ${datasource.host}:${datasource.port}/${datasource.database}`;
    case 'sql_b':
      return `the PostgreSQL database ${datasource.host}:${datasource.port}/${datasource.database}`;
  }
}

/** True when both name the same database: svc must never write into Drone's (their tables share names). */
export function sameDatabase(a: Datasource, b: Datasource, cwd: string): boolean {
  if (a.driver === 'embedded_sql' && b.driver === 'embedded_sql')
    return resolve(cwd, a.path) === resolve(cwd, b.path);
  if (a.driver === 'embedded_sql' || b.driver === 'embedded_sql') return false;
  return a.driver === b.driver && a.host === b.host && a.port === b.port && a.database === b.database;
}
