import type { SslOptions } from 'mysql2';
import { InvalidSettingsError } from '../../core/errors.js';

/**
 * The query parameters of an sql_a datasource, which has the shape of the Go MySQL driver's DSN.
 * Parameters that only configure the Go driver itself (parseTime, loc, charset, …) need nothing in
 * Node and are accepted as they are; `timeout` and `tls` are honoured; any other parameter is a
 * session system variable, set on every connection, as the Go driver does.
 */
export interface MysqlParams {
  readonly connectTimeoutMs: number;
  readonly ssl: SslOptions | undefined;
  /** `SET SESSION <name> = <value>` on every new connection. */
  readonly sessionVariables: ReadonlyArray<readonly [name: string, value: string | number]>;
}

/**
 * Go-driver parameters with no meaning here. The connection always uses utf8mb4 and the schema its
 * own collation, so charset/collation are ignored rather than allowed to narrow the character set.
 */
const GO_DRIVER_ONLY = new Set([
  'allowAllFiles',
  'allowCleartextPasswords',
  'allowFallbackToPlaintext',
  'allowNativePasswords',
  'allowOldPasswords',
  'charset',
  'checkConnLiveness',
  'clientFoundRows',
  'collation',
  'columnsWithAlias',
  'compress',
  'connectionAttributes',
  'interpolateParams',
  'loc',
  'maxAllowedPacket',
  'multiStatements',
  'parseTime',
  'readTimeout',
  'rejectReadOnly',
  'serverPubKey',
  'timeTruncate',
  'writeTimeout',
]);

const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
const GO_DURATION_UNITS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Reads the parameters; a value svc cannot honour is an InvalidSettingsError naming it. */
export function parseMysqlParams(params: Record<string, string>): MysqlParams {
  let connectTimeoutMs = DEFAULT_CONNECT_TIMEOUT_MS;
  let ssl: SslOptions | undefined;
  const sessionVariables: [string, string | number][] = [];
  for (const [name, value] of Object.entries(params)) {
    if (GO_DRIVER_ONLY.has(name)) continue;
    if (name === 'timeout') connectTimeoutMs = goDuration(name, value);
    else if (name === 'tls') ssl = tlsOptions(value);
    else sessionVariables.push([sessionVariableName(name), sessionVariableValue(value)]);
  }
  return { connectTimeoutMs, ssl, sessionVariables };
}

function invalid(message: string): InvalidSettingsError {
  return new InvalidSettingsError([{ setting: 'SVC_DATABASE_DATASOURCE', message }]);
}

function goDuration(name: string, value: string): number {
  const parts = [...value.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== value) {
    throw invalid(`${name}=${value} is not a duration such as 10s or 1m30s`);
  }
  return parts.reduce(
    (ms, [, amount = '0', unit = 'ms']) => ms + Number(amount) * (GO_DURATION_UNITS[unit] ?? 0),
    0,
  );
}

function tlsOptions(value: string): SslOptions | undefined {
  switch (value) {
    case 'false':
      return undefined;
    case 'true':
      return {};
    // mysql2 cannot fall back to plain text, so "preferred" means TLS without verification.
    case 'skip-verify':
    case 'preferred':
      return { rejectUnauthorized: false };
    default:
      throw invalid(
        `tls=${value} names a TLS configuration registered in Go code; svc accepts tls=true, skip-verify, preferred or false`,
      );
  }
}

function sessionVariableName(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    throw invalid(`parameter "${name}" is neither a known driver parameter nor a system variable name`);
  }
  return name;
}

/** Go passes the value verbatim, so users quote strings (`sql_mode='ANSI'`); svc binds it instead. */
function sessionVariableValue(value: string): string | number {
  if (/^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  const quoted = /^'(.*)'$/s.exec(value);
  return quoted?.[1] ?? value;
}
