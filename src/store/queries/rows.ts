import { sql, type InsertQueryBuilder, type InsertResult } from 'kysely';
import { ConflictError, NotFoundError, StaleVersionError, SvcError } from '../../core/errors.js';
import type { DialectAdapter } from '../dialects/adapter.js';
import type { Tables } from '../tables.js';

/** A boolean as the integer flag every dialect stores. */
export function flag(value: boolean): number {
  return value ? 1 : 0;
}

/** An integer flag (or a driver's boolean) as a boolean. */
export function bool(value: number | boolean): boolean {
  return value === true || Number(value) !== 0;
}

/** Rows changed by an UPDATE or DELETE (Kysely reports bigints). */
export function changed(result: { numUpdatedRows: bigint } | { numDeletedRows: bigint }): number {
  return Number('numUpdatedRows' in result ? result.numUpdatedRows : result.numDeletedRows);
}

/** Inserts one row and returns its generated id, by RETURNING or by the driver's insert id. */
export async function insertId<TB extends keyof Tables>(
  adapter: DialectAdapter,
  query: InsertQueryBuilder<Tables, TB, InsertResult>,
): Promise<number> {
  if (adapter.supportsReturning) {
    const row = await query.returning(sql<number>`id`.as('id')).executeTakeFirstOrThrow();
    return Number(row.id);
  }
  const result = await query.executeTakeFirstOrThrow();
  return Number(result.insertId);
}

/** How a write's constraint violations read to the caller. */
export interface Violations {
  /** Message of the ConflictError for a unique violation (or a function that works it out). */
  conflict?: string | (() => Promise<string>);
  /** What is missing (for NotFoundError) when a foreign key points nowhere. */
  missing?: string;
}

/** Runs a write, translating unique and foreign-key violations into ConflictError and NotFoundError. */
export async function write<T>(
  adapter: DialectAdapter,
  run: () => Promise<T>,
  violations: Violations,
): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (violations.conflict !== undefined && adapter.isUniqueViolation(error)) {
      const { conflict } = violations;
      throw new ConflictError(typeof conflict === 'string' ? conflict : await conflict(), { cause: error });
    }
    if (violations.missing !== undefined && adapter.isForeignKeyViolation(error)) {
      throw new NotFoundError(violations.missing, { cause: error });
    }
    throw error;
  }
}

/**
 * Completes an optimistic-locked update (`… WHERE id = ? AND version = ?`): no row changed means the
 * record is gone (NotFoundError) or someone else wrote first (StaleVersionError).
 */
export async function checkVersioned(
  rows: number,
  what: string,
  version: number,
  exists: () => Promise<unknown>,
): Promise<void> {
  if (rows === 1) return;
  if ((await exists()) === undefined) throw new NotFoundError(what);
  throw new StaleVersionError(what, version);
}

/** JSON text of a list or map field. */
export function toJson(value: readonly string[] | Record<string, string>): string {
  return JSON.stringify(value);
}

/** A JSON list of strings read back; anything else means the row was written by something other than svc. */
export function parseList(text: string, what: string): string[] {
  const value: unknown = JSON.parse(text);
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value;
  throw corrupt(what);
}

/** A JSON map of strings read back. */
export function parseMap(text: string, what: string): Record<string, string> {
  const value: unknown = JSON.parse(text);
  if (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((item) => typeof item === 'string')
  ) {
    return value as Record<string, string>;
  }
  throw corrupt(what);
}

function corrupt(what: string): SvcError {
  return new SvcError('INTERNAL', `${what} holds malformed JSON in the database`);
}
