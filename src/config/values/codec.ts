/** A JSON value, as `svc config print` shows settings. */
export type JsonValue =
  null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** The value types of the spec's tables (URLs, hosts and enumerations are strings there). */
export type ValueType =
  'boolean' | 'duration' | 'integer' | 'string' | 'path' | 'list' | 'map' | 'memory' | 'user' | 'datasource';

/** What a codec may know besides the raw value. */
export interface ParseContext {
  /** Relative paths are resolved against this directory. */
  readonly cwd: string;
  /** The non-empty SVC_* values of the environment, for settings whose form depends on another. */
  readonly env: Readonly<Record<string, string>>;
  /** True for secret settings: messages must not repeat the value. */
  readonly secret: boolean;
}

/**
 * The outcome of parsing one value. A failure without a message means the value could not be checked
 * because another setting is invalid; that setting's own problem explains it.
 */
export type Parsed<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly message?: string };

/** A parsed value. */
export function ok<T>(value: T): Parsed<T> {
  return { ok: true, value };
}

/** A refused value; the message completes "SVC_X: …". */
export function fail<T>(message: string): Parsed<T> {
  return { ok: false, message };
}

/** A failure reported by another setting. */
export function blocked<T>(): Parsed<T> {
  return { ok: false };
}

/** Reads, checks and prints one type of setting value. */
export interface Codec<T> {
  readonly type: ValueType;
  /** The accepted form, completing "expected …" in messages and docs, e.g. "true or false". */
  readonly expected: string;
  parse(raw: string, ctx: ParseContext): Parsed<T>;
  /** The value as `svc config print` shows it. */
  print(value: T): JsonValue;
  /** The printed form of a secret value when only part of it is secret (default: "[redacted]"). */
  redact?(value: T): JsonValue;
}

/** What printed secrets are replaced with. */
export const REDACTED = '[redacted]';

/** The raw value quoted for a message, or a neutral phrase when the setting is secret. */
export function shown(raw: string, ctx: ParseContext): string {
  return ctx.secret ? 'the value' : JSON.stringify(raw);
}
