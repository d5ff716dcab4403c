import type { Datasource, DatabaseDriver } from '../core/datasource.js';

/** Where the embedded database lives when SVC_DATABASE_DATASOURCE is unset (relative to the working directory). */
export const DEFAULT_EMBEDDED_DATASOURCE = 'data/svc.sqlite';

const SQL_A_SHAPE = '<user>:<password>@tcp(<host>:<port>)/<database>?parseTime=true';
const SQL_B_SHAPE = '<scheme>://<user>:<password>@<host>:<port>/<database>?sslmode=disable';

/** The shape a datasource of the driver must have, for error messages and docs. */
export function datasourceShape(driver: DatabaseDriver): string {
  switch (driver) {
    case 'embedded_sql':
      return 'a file path';
    case 'sql_a':
      return SQL_A_SHAPE;
    case 'sql_b':
      return SQL_B_SHAPE;
  }
}

/** Parses a datasource of the given driver; returns a message saying what is expected when it does not fit. */
export function parseDatasource(driver: DatabaseDriver, value: string): Datasource | string {
  switch (driver) {
    case 'embedded_sql':
      return value.trim() === '' ? 'expected a file path, got an empty value' : { driver, path: value };
    case 'sql_a':
      return parseSqlA(value);
    case 'sql_b':
      return parseSqlB(value);
  }
}

function parseSqlA(value: string): Datasource | string {
  // The user part may not hold '@'; the password may hold anything up to the last '@tcp('.
  const match = /^([^:@/]+):(.*)@tcp\(([^():/]+|\[[0-9a-fA-F:]+\])(?::(\d+))?\)\/([^?/]+)(?:\?(.*))?$/.exec(
    value,
  );
  if (!match) return `expected the form ${SQL_A_SHAPE}`;
  const [, user = '', password = '', host = '', port, database = '', query = ''] = match;
  const portNumber = port === undefined ? 3306 : Number(port);
  if (!validPort(portNumber)) return `port ${port} is not between 1 and 65535`;
  return {
    driver: 'sql_a',
    user: decodeURIComponent(user),
    password: decodeURIComponent(password),
    host: host.replace(/^\[|\]$/g, ''),
    port: portNumber,
    database,
    params: Object.fromEntries(new URLSearchParams(query)),
  };
}

function parseSqlB(value: string): Datasource | string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `expected the form ${SQL_B_SHAPE}`;
  }
  const scheme = url.protocol.replace(/:$/, '');
  if (scheme !== 'postgres' && scheme !== 'postgresql') {
    return `expected the scheme postgres or postgresql in the form ${SQL_B_SHAPE}, got ${scheme}`;
  }
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (url.hostname === '' || database === '' || url.username === '') {
    return `expected the form ${SQL_B_SHAPE}`;
  }
  const portNumber = url.port === '' ? 5432 : Number(url.port);
  if (!validPort(portNumber)) return `port ${url.port} is not between 1 and 65535`;
  return {
    driver: 'sql_b',
    scheme,
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: portNumber,
    database,
    params: Object.fromEntries(url.searchParams),
  };
}

function validPort(port: number): boolean {
  return Number.isInteger(port) && port >= 1 && port <= 65535;
}
