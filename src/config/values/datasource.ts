import { DATABASE_DRIVERS, type Datasource, type DatabaseDriver } from '../../core/datasource.js';
import { parseDatabaseSecret } from '../../core/secret-key.js';
import { DEFAULT_EMBEDDED_DATASOURCE, datasourceShape, parseDatasource } from '../datasource.js';
import { blocked, fail, ok, REDACTED, shown, type Codec, type ParseContext, type Parsed } from './codec.js';
import { oneOf } from './scalars.js';

/** SVC_DATABASE_DRIVER. */
export const databaseDriver = oneOf(
  DATABASE_DRIVERS,
  'a database driver',
  'embedded_sql (a SQLite file), sql_a (MySQL or MariaDB) or sql_b (PostgreSQL)',
);

/** SVC_DATABASE_DATASOURCE, read according to SVC_DATABASE_DRIVER. Messages never repeat the value. */
export const datasource: Codec<Datasource> = {
  type: 'datasource',
  expected: 'a connection string of the form SVC_DATABASE_DRIVER needs',
  parse(raw, ctx) {
    const driver = driverOf(ctx);
    if (driver === undefined) return blocked();
    const parsed = parseDatasource(driver, raw);
    return typeof parsed === 'string'
      ? fail(`the value (not shown: it may hold a password) does not fit driver ${driver}: ${parsed}`)
      : ok(parsed);
  },
  print: (value) => formatDatasource(value, false),
  redact: (value) => formatDatasource(value, true),
};

/** The datasource when SVC_DATABASE_DATASOURCE is unset: the default file, or a problem for network databases. */
export function defaultDatasource(ctx: ParseContext): Parsed<Datasource> {
  const driver = driverOf(ctx);
  if (driver === undefined) return blocked();
  if (driver === 'embedded_sql') return ok({ driver, path: DEFAULT_EMBEDDED_DATASOURCE });
  return fail(
    `is required when SVC_DATABASE_DRIVER is ${driver}; expected the form ${datasourceShape(driver)}`,
  );
}

/** The connection string of a datasource, with the password replaced by "[redacted]" when asked. */
export function formatDatasource(value: Datasource, redact: boolean): string {
  if (value.driver === 'embedded_sql') return value.path;
  const password = value.password === '' || !redact ? encodeURIComponent(value.password) : REDACTED;
  const host = value.host.includes(':') ? `[${value.host}]` : value.host;
  const query = new URLSearchParams(value.params).toString();
  const tail = `/${value.database}${query === '' ? '' : `?${query}`}`;
  const user = encodeURIComponent(value.user);
  return value.driver === 'sql_a'
    ? `${user}:${password}@tcp(${host}:${value.port})${tail}`
    : `${value.scheme}://${user}${value.password === '' ? '' : `:${password}`}@${host}:${value.port}${tail}`;
}

/** SVC_DATABASE_SECRET: checked with the key rule of src/core/secret-key.ts. */
export const databaseSecret: Codec<string> = {
  type: 'string',
  expected: '32 ASCII characters or 64 hexadecimal characters',
  parse(raw, ctx) {
    const key = parseDatabaseSecret(raw);
    return typeof key === 'string' ? fail(`${shown(raw, ctx)} is not a usable key: ${key}`) : ok(raw);
  },
  print: (value) => value,
};

function driverOf(ctx: ParseContext): DatabaseDriver | undefined {
  const parsed = databaseDriver.parse(ctx.env.SVC_DATABASE_DRIVER ?? 'embedded_sql', ctx);
  return parsed.ok ? parsed.value : undefined;
}
