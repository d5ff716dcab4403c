import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { InvalidInputError } from '../../core/errors.js';
import { nulPath } from '../nul-path.js';

/**
 * The request body read with a protocol schema; InvalidInputError (400) saying what is wrong. Text
 * with a NUL character is refused, wherever it is: PostgreSQL cannot store it in a text column, so
 * the write would fail later as a server error (log lines are not read here: they are stored as JSON).
 */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown, what: string): z.output<S> {
  const nul = nulPath(body);
  if (nul !== undefined)
    throw new InvalidInputError(`${what} is malformed: ${nul || 'body'}: contains a NUL character`);
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`)
    .join('; ');
  throw new InvalidInputError(`${what} is malformed: ${problems}`);
}

/** The `:id` path parameter as a positive integer; InvalidInputError otherwise. */
export function idParam(request: FastifyRequest): number {
  const raw = (request.params as { id?: string }).id ?? '';
  const id = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(id) || id < 1) {
    throw new InvalidInputError(`"${raw}" is not an id; expected a positive whole number`);
  }
  return id;
}

/** A query parameter, or undefined when absent or empty; InvalidInputError when it has a NUL character. */
export function queryParam(request: FastifyRequest, name: string): string | undefined {
  const value = (request.query as Record<string, unknown>)[name];
  if (typeof value !== 'string' || value === '') return undefined;
  if (value.includes('\u0000')) throw new InvalidInputError(`?${name}= contains a NUL character`);
  return value;
}

/**
 * Parses request bodies as JSON whatever their content type: Drone's runners send JSON without a
 * Content-Type header, and bodiless POSTs (accept, watch) with none at all. An empty body is `undefined`.
 */
export function lenientJson(
  _request: FastifyRequest,
  body: string,
  done: (err: Error | null, value?: unknown) => void,
): void {
  try {
    done(null, jsonText(body));
  } catch (error) {
    done(error as Error);
  }
}

/** A body's text as JSON, as lenientJson reads it: undefined when empty; InvalidInputError when not JSON. */
export function jsonText(body: string): unknown {
  if (body.trim() === '') return undefined;
  try {
    return JSON.parse(body);
  } catch {
    throw new InvalidInputError('the body is not JSON');
  }
}

/** Aborts when the client's connection closes before its answer, or when `closing` aborts (shutdown). */
export function requestSignal(
  request: FastifyRequest,
  closing: AbortSignal,
): { signal: AbortSignal; done: () => void } {
  const gone = new AbortController();
  const onClose = (): void => gone.abort();
  const socket = request.raw.socket;
  socket.once('close', onClose);
  return { signal: AbortSignal.any([gone.signal, closing]), done: () => socket.off('close', onClose) };
}
