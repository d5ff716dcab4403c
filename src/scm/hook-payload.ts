import type { z } from 'zod';
import { InvalidInputError } from '../core/errors.js';
import type { ScmHookBuild, ScmHookRequest, ScmHookResult, ScmRepoRef } from '../core/scm.js';

/** A webhook's body as JSON; INVALID_INPUT, naming the provider, when it is not JSON. */
export function readHookJson(provider: string, body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw new InvalidInputError(`${provider} webhook: the body is not JSON`, { cause: error });
  }
}

/** An event's payload read with its schema; INVALID_INPUT naming the fields that do not fit. */
export function readHookPayload<S extends z.ZodType>(
  provider: string,
  event: string,
  schema: S,
  body: unknown,
): z.infer<S> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const where = parsed.error.issues.map((issue) => issue.path.join('.') || 'the payload').join(', ');
    throw new InvalidInputError(`${provider} webhook: the ${event} payload lacks or misshapes ${where}`);
  }
  return parsed.data;
}

/** What a verified event asks for, before the delivery's id is added to a build. */
export type HookEvent =
  | { kind: 'build'; repo: ScmRepoRef & { uid: string }; build: ScmHookBuild }
  | { kind: 'ignored'; reason: string };

/**
 * The event as the hook's result: a build carries the delivery's id, the first of `headers` (lower
 * case, in the provider's order of preference) that the request has, trimmed; empty when none.
 */
export function withDelivery(
  event: HookEvent,
  request: ScmHookRequest,
  headers: readonly string[],
): ScmHookResult {
  if (event.kind !== 'build') return event;
  const delivery = headers.map((name) => request.headers[name]?.trim() ?? '').find((value) => value !== '');
  return { ...event, delivery: delivery ?? '' };
}
