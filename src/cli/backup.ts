import Database from 'better-sqlite3';
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { DATABASE_DRIVERS, type Datasource, type DatabaseDriver } from '../core/datasource.js';
import type { Env } from '../config/index.js';
import { DEFAULT_EMBEDDED_DATASOURCE, parseDatasource } from '../config/datasource.js';
import type { CommandIO } from './io.js';

const USAGE = `Usage: svc backup FILE

Copies the server's SQLite database (SVC_DATABASE_DATASOURCE) into FILE, a new file, while the
server runs: one consistent snapshot (SQLite's VACUUM INTO), readable only by its owner. Restore by
stopping the server and putting the copy in place of the database file. MySQL/MariaDB and
PostgreSQL databases are backed up with their own tools (mariadb-dump --single-transaction,
pg_dump --format=custom): see docs/database.md, "Backups". Keep SVC_DATABASE_SECRET with the
backup: without it the secrets in the copy cannot be read.
`;

/** `svc backup FILE`; exit codes: 0 copied, 1 the copy failed, 2 bad usage or settings. */
export function backupCommand(args: readonly string[], env: Env, io: CommandIO): number {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(USAGE);
    return 0;
  }
  const [file, ...extra] = args;
  if (file === undefined || file.startsWith('-') || extra.length > 0) {
    io.stderr(`svc backup: expected one FILE to write\n\n${USAGE}`);
    return 2;
  }
  const datasource = databaseOf(env);
  if (typeof datasource === 'string') {
    io.stderr(`svc backup: ${datasource}\n`);
    return 2;
  }
  if (datasource.driver !== 'embedded_sql') {
    const tool =
      datasource.driver === 'sql_a' ? 'mariadb-dump --single-transaction' : 'pg_dump --format=custom';
    io.stderr(
      `svc backup: SVC_DATABASE_DRIVER is ${datasource.driver}: back that database up with ${tool} (docs/database.md, "Backups"); svc backup copies SQLite databases\n`,
    );
    return 2;
  }
  const source = resolve(io.cwd, datasource.path);
  const target = resolve(io.cwd, file);
  if (!existsSync(source)) {
    io.stderr(`svc backup: SVC_DATABASE_DATASOURCE: there is no database at ${source}\n`);
    return 2;
  }
  if (existsSync(target)) {
    io.stderr(`svc backup: ${target} exists already; name a new file (a backup never overwrites)\n`);
    return 2;
  }
  return copy(source, target, io);
}

/** The server's database as SVC_DATABASE_DRIVER and SVC_DATABASE_DATASOURCE name it: all a backup needs. */
function databaseOf(env: Env): Datasource | string {
  const driver = env.SVC_DATABASE_DRIVER ?? 'embedded_sql';
  if (!DATABASE_DRIVERS.includes(driver as DatabaseDriver))
    return `SVC_DATABASE_DRIVER: expected one of ${DATABASE_DRIVERS.join(', ')}, got ${driver}`;
  const value = env.SVC_DATABASE_DATASOURCE ?? (driver === 'embedded_sql' ? DEFAULT_EMBEDDED_DATASOURCE : '');
  const parsed = parseDatasource(driver as DatabaseDriver, value);
  // The value may hold a password: the message never repeats it.
  return typeof parsed === 'string' ? `SVC_DATABASE_DATASOURCE: ${parsed}` : parsed;
}

/** VACUUM INTO: a read transaction's snapshot, so the server's writes neither wait nor restart it. */
function copy(source: string, target: string, io: CommandIO): number {
  const started = Date.now();
  const mib = (path: string): string => (statSync(path).size / 1048576).toFixed(1);
  io.stderr(`svc backup: copying ${source} (${mib(source)} MiB) to ${target}…\n`);
  // The copy holds hashed tokens and encrypted secrets: its owner's alone, from its first byte.
  const umask = process.umask(0o077);
  const db = new Database(source, { readonly: true, fileMustExist: true, timeout: 30_000 });
  try {
    db.prepare('VACUUM INTO ?').run(target);
  } catch (error) {
    io.stderr(
      `svc backup: copying ${source} failed: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return 1;
  } finally {
    db.close();
    process.umask(umask);
  }
  io.stderr(
    `svc backup: ${target} written, ${mib(target)} MiB, in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );
  return 0;
}
