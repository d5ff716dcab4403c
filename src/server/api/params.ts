import { z } from 'zod';
import { InvalidInputError } from '../../core/errors.js';
import type { Page } from '../../core/build.js';
import { nulPath } from '../nul-path.js';

/** `/repos/{owner}/{name}` path parameters. */
export const RepoParams = z.object({ owner: z.string().min(1), name: z.string().min(1) });

/**
 * A build, stage or step number, or a repository's build counter: a positive whole number that
 * fits the store's 32-bit columns (PostgreSQL and MySQL refuse a larger one as a server error).
 */
export const ordinal = z.coerce.number().int().positive().max(2_147_483_647);

/** `/repos/{owner}/{name}/builds/{number}` path parameters. */
export const BuildParams = RepoParams.extend({ number: ordinal });

/** `/repos/{owner}/{name}/cron/{cron}` path parameters: the job's name. */
export const CronParams = RepoParams.extend({ cron: z.string().min(1) });

/** `/…/builds/{number}/logs/{stage}/{step}` path parameters: stage and step numbers. */
export const StepParams = BuildParams.extend({
  stage: ordinal,
  step: ordinal,
});

/** Drone's paging: `?page=` (1-based, default 1) and `?per_page=` (default 25, at most 100). */
export const PageQuery = z.object({
  page: z.coerce.number().int().positive().default(1).describe('1-based page number'),
  per_page: z.coerce.number().int().min(1).max(100).default(25).describe('items per page, at most 100'),
});

/** A query flag: `true`/`1`/`yes` turn it on; absent, empty or `false`/`0`/`no` leave it off. */
export const flagQuery = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
  .optional()
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

/**
 * Parses request input with a schema; a mismatch is INVALID_INPUT naming the offending fields. Text
 * with a NUL character is refused first, wherever it is: PostgreSQL cannot store it in a text
 * column (the write would fail as a server error), and no name, value or setting of svc needs it.
 */
export function parseInput<T>(schema: z.ZodType<T>, value: unknown): T {
  const nul = nulPath(value);
  if (nul !== undefined) throw new InvalidInputError(`${nul || 'input'}: must not contain a NUL character`);
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'input'}: ${issue.message}`);
  throw new InvalidInputError(problems.join('; '));
}

/** The store's page of a parsed PageQuery. */
export function pageOf(query: z.output<typeof PageQuery>): Page {
  return { page: query.page, perPage: query.per_page };
}
