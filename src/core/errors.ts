/**
 * svc's error hierarchy. Every error carries a stable `code` that logs, docs and tests match on;
 * the HTTP layer translates codes to status codes in one place (src/server/http-errors.ts).
 */
export type ErrorCode =
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'STALE_VERSION'
  | 'INVALID_INPUT'
  | 'INVALID_SETTINGS'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'RATE_LIMITED'
  | 'DATABASE_TOO_NEW'
  | 'DATABASE_UNAVAILABLE'
  | 'DATABASE_FULL'
  | 'SECRET_KEY_MISSING'
  | 'SECRET_KEY_WRONG'
  | 'ENCRYPTED_VALUE_INVALID'
  | 'INTERNAL';

export class SvcError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

/** The record asked for does not exist. */
export class NotFoundError extends SvcError {
  constructor(what: string, options?: { cause?: unknown }) {
    super('NOT_FOUND', `${what} not found`, options);
  }
}

/** The write collides with existing data (a unique name, a first-runner-wins accept). */
export class ConflictError extends SvcError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('CONFLICT', message, options);
  }
}

/**
 * An optimistic-locked update was based on an old version of the record: someone else wrote first.
 * The caller re-reads and retries, or gives up; it never overwrites.
 */
export class StaleVersionError extends SvcError {
  constructor(what: string, expectedVersion: number) {
    super('STALE_VERSION', `${what} was changed by someone else (expected version ${expectedVersion})`);
  }
}

/** Input from a user or a client does not have the expected form. */
export class InvalidInputError extends SvcError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('INVALID_INPUT', message, options);
  }
}

/** One problem with one setting; `setting` names it so that every report line can say which. */
export interface SettingProblem {
  readonly setting: string;
  readonly message: string;
}

/** The settings could not be parsed. Holds every problem found, not just the first. */
export class InvalidSettingsError extends SvcError {
  readonly problems: readonly SettingProblem[];

  constructor(problems: readonly SettingProblem[]) {
    super(
      'INVALID_SETTINGS',
      `invalid settings:\n${problems.map((p) => `${p.setting}: ${p.message}`).join('\n')}`,
    );
    this.problems = problems;
  }
}

export class UnauthorizedError extends SvcError {
  constructor(message = 'authentication required') {
    super('UNAUTHORIZED', message);
  }
}

export class ForbiddenError extends SvcError {
  constructor(message = 'not allowed') {
    super('FORBIDDEN', message);
  }
}

/**
 * The database cannot be used: at start, a refusal (unreachable, too new, wrong secret key); while
 * svc runs, a database that cannot serve now — DATABASE_UNAVAILABLE (server gone or restarting,
 * SQLite file locked by another process) or DATABASE_FULL (no disk space left) — which clients
 * may try again after.
 */
export class DatabaseError extends SvcError {}
