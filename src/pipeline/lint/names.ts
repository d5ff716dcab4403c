import { child } from '../decode/read.js';
import type { Diagnostics, Position } from '../diagnostics.js';

/** Longest name Drone stores for a step or a stage (its database columns are 100 characters wide). */
export const MAX_NAME_LENGTH = 100;

/**
 * Drone accepts any name a step or pipeline is given (existing files use spaces, e.g. "Lint code"),
 * so svc does too; it refuses only names that cannot be stored or shown on one line.
 */
export function nameProblem(name: string): string | undefined {
  if (name.trim() === '') return 'is missing or empty; expected a name, e.g. name: build';
  if (name.length > MAX_NAME_LENGTH) {
    return `is ${name.length} characters long; expected at most ${MAX_NAME_LENGTH}`;
  }
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\u0000-\u001f\u007f]/.test(name))
    return 'contains a line break or control character; expected one line of text';
  return undefined;
}

/** A named thing to check: its name, where the name is, and its field path. */
export interface Named {
  readonly name: string;
  readonly at: Position;
  readonly field: string;
  /** The name is a default (a pipeline without `name:`), which the clash message then explains. */
  readonly implicit?: boolean;
}

/**
 * Reports unusable names and names used twice. `reserved` maps names taken by something implicit
 * (the clone step) to the advice for a clash.
 */
export function checkNames(
  items: readonly Named[],
  what: string,
  scope: string,
  reserved: ReadonlyMap<string, string>,
  diagnostics: Diagnostics,
): void {
  const first = new Map<string, Named>();
  for (const item of items) {
    const problem = nameProblem(item.name);
    if (problem !== undefined) {
      diagnostics.error(item.at, child(item.field, 'name'), `${what} name ${problem}`);
      continue;
    }
    const advice = reserved.get(item.name);
    if (advice !== undefined) {
      diagnostics.error(item.at, child(item.field, 'name'), advice);
      continue;
    }
    const earlier = first.get(item.name);
    if (earlier !== undefined) {
      diagnostics.error(
        item.at,
        child(item.field, 'name'),
        `${what} name "${item.name}" is already used at line ${earlier.at.line}, column ${earlier.at.column}; expected names unique ${scope}${item.implicit === true ? ` (a ${what} without a name is called "${item.name}")` : ''}`,
      );
      continue;
    }
    first.set(item.name, item);
  }
}
