import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import { InvalidSettingsError } from '../../core/errors.js';

/**
 * The query parameters of an sql_b datasource, with libpq's names and meanings. libpq refuses an
 * unknown parameter, and so does svc: a misspelt `sslmode` must not silently connect in plain text.
 */
export interface PostgresParams {
  /** `false` for no TLS. */
  readonly ssl: false | ConnectionOptions;
  readonly connectTimeoutMs: number;
  readonly applicationName: string;
  /** Server options (`-c search_path=ci`). */
  readonly options: string | undefined;
}

const KNOWN = [
  'sslmode',
  'sslrootcert',
  'sslcert',
  'sslkey',
  'connect_timeout',
  'application_name',
  'options',
];
const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

function invalid(message: string): InvalidSettingsError {
  return new InvalidSettingsError([{ setting: 'SVC_DATABASE_DATASOURCE', message }]);
}

/** Reads the parameters; an unknown parameter or value is an InvalidSettingsError naming it. */
export function parsePostgresParams(params: Record<string, string>): PostgresParams {
  const unknown = Object.keys(params).filter((name) => !KNOWN.includes(name));
  if (unknown.length > 0) {
    throw invalid(`unknown parameter ${unknown.join(', ')}; svc understands ${KNOWN.join(', ')}`);
  }
  const timeout = params.connect_timeout;
  if (timeout !== undefined && !/^\d+$/.test(timeout)) {
    throw invalid(`connect_timeout=${timeout} is not a number of seconds`);
  }
  return {
    ssl: sslOptions(params),
    // libpq: zero or absent waits forever; svc keeps a bound so that a wrong address fails at start.
    connectTimeoutMs:
      timeout === undefined || timeout === '0' ? DEFAULT_CONNECT_TIMEOUT_MS : Number(timeout) * 1000,
    applicationName: params.application_name ?? 'svc',
    options: params.options,
  };
}

/**
 * libpq's sslmode. Node's driver cannot fall back from TLS to plain text, so `allow` and `prefer`
 * (libpq's default) connect without TLS; `require` encrypts without verifying the server, as in libpq.
 */
function sslOptions(params: Record<string, string>): false | ConnectionOptions {
  const mode = params.sslmode ?? 'prefer';
  const files = {
    ...(params.sslrootcert === undefined ? {} : { ca: readParamFile('sslrootcert', params.sslrootcert) }),
    ...(params.sslcert === undefined ? {} : { cert: readParamFile('sslcert', params.sslcert) }),
    ...(params.sslkey === undefined ? {} : { key: readParamFile('sslkey', params.sslkey) }),
  };
  switch (mode) {
    case 'disable':
    case 'allow':
    case 'prefer':
      return false;
    case 'require':
      return { ...files, rejectUnauthorized: false };
    case 'verify-ca':
      // The chain is verified, the host name is not.
      return { ...files, rejectUnauthorized: true, checkServerIdentity: () => undefined };
    case 'verify-full':
      return { ...files, rejectUnauthorized: true };
    default:
      throw invalid(`sslmode=${mode} is not one of disable, allow, prefer, require, verify-ca, verify-full`);
  }
}

function readParamFile(name: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw invalid(`${name}=${path} cannot be read: ${(error as Error).message}`);
  }
}
