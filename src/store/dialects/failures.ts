import { DatabaseError } from '../../core/errors.js';
import { describeError, errorCode } from './errors.js';

/** What a driver error says about the database, as far as the caller can act on it. */
export type FailureKind = 'unavailable' | 'locked' | 'full';

/**
 * Socket-level failures any driver reports as Node does: the server is not there, went away, or
 * does not answer. They mean "try again later", never "your request is wrong".
 */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * PostgreSQL's SQLSTATEs of a lost or refused connection: class 08 (connection exception),
 * admin_shutdown (pg_ctl stop), crash_shutdown, cannot_connect_now (starting up or shutting down),
 * too_many_connections. disk_full is the one "out of space" state.
 */
const POSTGRES_UNAVAILABLE = new Set(['57P01', '57P02', '57P03', '53300']);
const POSTGRES_FULL = new Set(['53100']);

/**
 * node-postgres reports a socket that closed under a query, and a pool that could not connect in
 * time, with these messages and no code.
 */
const POSTGRES_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'is not queryable',
  'Client was closed',
];

/** mysql2's codes of a lost or refused connection; ER_SERVER_SHUTDOWN is `mariadb-admin shutdown`. */
const MYSQL_UNAVAILABLE = new Set([
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'PROTOCOL_ENQUEUE_AFTER_FATAL_ERROR',
  'PROTOCOL_ENQUEUE_AFTER_QUIT',
  'ER_SERVER_SHUTDOWN',
  'ER_CON_COUNT_ERROR',
  'ER_CONNECTION_KILLED',
]);
/** The table or the disk under it is full (MySQL reports errno 28, ENOSPC, inside other errors). */
const MYSQL_FULL = new Set(['ER_RECORD_FILE_FULL', 'ER_DISK_FULL']);

/** The kind of a driver error that is the database's state rather than the query's fault; undefined otherwise. */
export function failureKind(product: string, error: unknown): FailureKind | undefined {
  if (error instanceof AggregateError && error.errors.length > 0)
    return failureKind(product, error.errors[0]);
  if (!(error instanceof Error)) return undefined;
  const code = errorCode(error);
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return 'unavailable';
  switch (product) {
    case 'SQLite':
      return sqliteKind(code);
    case 'PostgreSQL':
      if (typeof code === 'string' && POSTGRES_FULL.has(code)) return 'full';
      if (typeof code === 'string' && (code.startsWith('08') || POSTGRES_UNAVAILABLE.has(code))) {
        return 'unavailable';
      }
      return POSTGRES_MESSAGES.some((m) => error.message.includes(m)) ? 'unavailable' : undefined;
    case 'MySQL':
      if (typeof code === 'string' && MYSQL_FULL.has(code)) return 'full';
      if (/errno: 28\b/.test(error.message)) return 'full';
      if (typeof code === 'string' && MYSQL_UNAVAILABLE.has(code)) return 'unavailable';
      // mysql2 marks every error that broke the connection as fatal.
      return (error as { fatal?: unknown }).fatal === true ? 'unavailable' : undefined;
    default:
      return undefined;
  }
}

function sqliteKind(code: unknown): FailureKind | undefined {
  if (typeof code !== 'string') return undefined;
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return 'locked';
  if (code === 'SQLITE_FULL') return 'full';
  if (
    code.startsWith('SQLITE_IOERR') ||
    code.startsWith('SQLITE_CANTOPEN') ||
    code.startsWith('SQLITE_READONLY')
  ) {
    return 'unavailable';
  }
  return undefined;
}

const CODES = {
  unavailable: 'DATABASE_UNAVAILABLE',
  locked: 'DATABASE_UNAVAILABLE',
  full: 'DATABASE_FULL',
} as const;
const STATES = {
  unavailable: 'is unavailable',
  locked: 'is locked by another process',
  full: 'is out of disk space',
};

/**
 * The DatabaseError a request fails with when the database cannot serve it now: DATABASE_UNAVAILABLE
 * (gone, restarting, locked by another process) or DATABASE_FULL (no disk space left). The message
 * names the database and the driver's reason, for the server's log; undefined for any other error,
 * which stays as the driver reported it (unique violations and the like are the callers' business).
 */
export function databaseFailure(product: string, target: string, error: unknown): DatabaseError | undefined {
  if (error instanceof DatabaseError) return error;
  const kind = failureKind(product, error);
  if (kind === undefined) return undefined;
  return new DatabaseError(
    CODES[kind],
    `the ${product} database ${target} ${STATES[kind]}: ${describeError(error)}`,
    {
      cause: error,
    },
  );
}
