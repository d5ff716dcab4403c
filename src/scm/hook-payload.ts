import type { z } from 'zod';
import { InvalidInputError } from '../core/errors.js';

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
