import { z } from 'zod';
import { InvalidInputError, SvcError } from '../../../core/errors.js';
import type { TriggerResult } from '../../trigger/index.js';
import { buildJson } from '../json/build.js';

/** Parameters become step variables: their names must be variable names. */
const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Every query parameter a route does not name itself: build parameters (`KEY=VALUE`). */
export const ParamsCatchall = z.union([z.string(), z.array(z.string())]);

/**
 * The build parameters of a query (custom builds, restarts, promotions): every parameter but the
 * route's own and `access_token` (which authenticates, as in Drone), the first value when one is
 * repeated, as Drone reads them. A name that cannot be a variable is INVALID_INPUT naming it.
 */
export function buildParamsOf(
  query: Record<string, unknown>,
  routeOwn: readonly string[],
): Record<string, string> {
  const reserved = new Set([...routeOwn, 'access_token']);
  const params: Record<string, string> = {};
  for (const [key, value] of Object.entries(query)) {
    if (reserved.has(key) || value === undefined) continue;
    const first: unknown = Array.isArray(value) ? value[0] : value;
    if (typeof first !== 'string') continue;
    if (!VARIABLE.test(key)) {
      throw new InvalidInputError(
        // An empty or blank name (`?=1`) is quoted, so that the message still shows it.
        `${/^\S+$/.test(key) ? key : JSON.stringify(key)}: build parameters become step variables; name query parameters with letters, digits and "_", not starting with a digit`,
      );
    }
    params[key] = first;
  }
  return params;
}

/** A created build's answer; a trigger that created none is INVALID_INPUT saying why. */
export function createdBuildJson(result: TriggerResult): Record<string, unknown> {
  if (result.kind === 'skipped') throw new InvalidInputError(`no build was created: ${result.reason}`);
  return buildJson(result.build, result.stages);
}

/** Without a git provider svc reads no pipeline file, so it cannot build. */
export function noProvider(): SvcError {
  return new SvcError('INVALID_SETTINGS', 'no git provider is configured, so svc cannot build');
}
