import type { GoValue } from './values.js';

/** A parameter's Go type, as far as svc checks it: anything, a string, an int. */
export type ParamType = 'any' | 'string' | 'int';

/** What a function may use besides its arguments. */
export interface FuncContext {
  /** The longest string a function may make (the output limit). */
  readonly maxBytes: number;
  /** Epoch milliseconds, for `now`. */
  now(): number;
}

/** A template function: Go's signature (what the executor checks), and its body. */
export interface GoFunc {
  readonly params: readonly ParamType[];
  /** The type of `...args` after `params`, for variadic functions. */
  readonly variadic?: ParamType;
  readonly call: (args: GoValue[], context: FuncContext) => GoValue;
}

/** A function's own failure: the executor reports it as Go does (`error calling NAME: …`). */
export class FuncError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FuncError';
  }
}

/** The functions a template may call, by name. */
export type FuncTable = ReadonlyMap<string, GoFunc>;

/** A string a function is about to make must fit the output limit. */
export function checkSize(length: number, context: FuncContext): void {
  if (length > context.maxBytes)
    throw new FuncError(`the result would be larger than the limit of ${context.maxBytes} bytes`);
}
