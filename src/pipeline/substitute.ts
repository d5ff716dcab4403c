import { globMatch } from './match/glob.js';

/** A `${…}` expression that cannot be read; `offset` is where it starts in the text. */
export interface SubstitutionError {
  readonly offset: number;
  readonly message: string;
}

/** The text with every `${…}` replaced, or the first expression that cannot be read. */
export type SubstitutionResult =
  { readonly ok: true; readonly text: string } | { readonly ok: false; readonly error: SubstitutionError };

/** How a substitution differs from Drone's. */
export interface SubstitutionOptions {
  /**
   * Names whose expressions are left exactly as written, to be substituted later (a matrix's axes
   * during the build variables' pass; everything but the axes during the axes' pass).
   */
  readonly keep?: (name: string) => boolean;
  /** Whether `$$`, `\\` and `\/` are read as escapes (true): false for a second pass on text already read. */
  readonly escapes?: boolean;
  /** Told every value an expression is replaced with (nested expressions' too). */
  readonly inserted?: (value: string) => void;
}

/**
 * Drone's substitution of build variables in the raw pipeline file, done before the YAML is parsed, with
 * its exact rules, so that existing files mean what they meant there:
 * - `${NAME}` becomes the variable's value, and an unknown name becomes the empty string;
 * - bash-like operations: `${#N}`, `${N^}`, `${N^^}`, `${N,}`, `${N,,}`, `${N:pos}`, `${N:pos:len}`,
 *   `${N#pat}`, `${N##pat}`, `${N%pat}`, `${N%%pat}`, `${N/old/new}`, `${N//old/new}`, `${N/#old/new}`,
 *   `${N/%old/new}`, and defaults `${N=d}`, `${N:=d}`, `${N:-d}` (used when the value is empty);
 * - `$$` is a literal `$`, and `\\` and `\/` are a literal `\` and `/`; `$NAME` without braces is left alone.
 */
export function substituteVariables(
  text: string,
  lookup: (name: string) => string | undefined,
  options: SubstitutionOptions = {},
): SubstitutionResult {
  const parser = new Parser(
    text,
    (name) => lookup(name) ?? '',
    options.keep ?? (() => false),
    options.inserted ?? (() => undefined),
  );
  try {
    return { ok: true, text: parser.text(() => false, options.escapes ?? true) };
  } catch (error) {
    if (error instanceof BadSubstitution)
      return { ok: false, error: { offset: error.offset, message: error.message } };
    throw error;
  }
}

/**
 * The lookup Drone substitutes with: the given variables, and a value with a line break (a commit
 * message) quoted as a string literal so that it cannot break the YAML around it.
 */
export function substitutionLookup(
  variables: Readonly<Record<string, string>>,
): (name: string) => string | undefined {
  return (name) => {
    const value = Object.hasOwn(variables, name) ? variables[name] : undefined;
    return value !== undefined && value.includes('\n') ? JSON.stringify(value) : value;
  };
}

class BadSubstitution extends Error {
  readonly offset: number;
  constructor(offset: number, detail: string) {
    super(`bad substitution: ${detail}`);
    this.offset = offset;
  }
}

const NAME = /[\p{L}\p{N}_-]/u;

class Parser {
  #index = 0;
  readonly #source: string;
  readonly #value: (name: string) => string;
  readonly #keep: (name: string) => boolean;
  readonly #inserted: (value: string) => void;

  constructor(
    source: string,
    value: (name: string) => string,
    keep: (name: string) => boolean,
    inserted: (value: string) => void,
  ) {
    this.#source = source;
    this.#value = value;
    this.#keep = keep;
    this.#inserted = inserted;
  }

  /** Text up to `stop` (not consumed) or the end, with escapes and nested `${…}` expanded. */
  text(stop: (char: string) => boolean, escapes = true): string {
    let out = '';
    while (this.#index < this.#source.length) {
      const char = this.#peek();
      const next = this.#peek(1);
      if (char === '$' && next === '{') {
        out += this.#expression();
      } else if (stop(char)) {
        break;
      } else if (escapes && char === '$' && next === '$') {
        out += '$';
        this.#index += 2;
      } else if (escapes && char === '\\' && (next === '/' || next === '\\')) {
        out += next;
        this.#index += 2;
      } else {
        out += char;
        this.#index++;
      }
    }
    return out;
  }

  #expression(): string {
    const start = this.#index;
    const { name, result } = this.#evaluate(start);
    // Read whole (so that its end is known and a malformed one is still an error), then kept.
    if (this.#keep(name)) return this.#source.slice(start, this.#index);
    this.#inserted(result);
    return result;
  }

  #evaluate(start: number): { name: string; result: string } {
    this.#index += 2;
    if (this.#peek() === '#') {
      this.#index++;
      const name = this.#name(start);
      this.#close(start);
      return { name, result: String(this.#value(name).length) };
    }
    const name = this.#name(start);
    const value = this.#value(name);
    const char = this.#peek();
    let result: string;
    if (char === '}') result = value;
    else if (char === ':' && '=-?+'.includes(this.#peek(1))) result = this.#default(value, 2);
    else if (char === '=') result = this.#default(value, 1);
    else if (char === ':') result = this.#substring(value, start);
    else if (char === ',' || char === '^') result = casing(value, this.#operator(char, 2));
    else if (char === '/') result = this.#replace(value, start);
    else if (char === '#' || char === '%')
      result = trim(value, this.#operator(char, 2), this.text(isClose, false));
    else if (char === '' || char === '\n')
      throw new BadSubstitution(start, `\${${name} is not closed with }`);
    else throw new BadSubstitution(start, `unexpected "${char}" after \${${name}`);
    this.#close(start);
    return { name, result };
  }

  #name(start: number): string {
    let name = '';
    while (NAME.test(this.#peek())) name += this.#source.charAt(this.#index++);
    if (name === '') throw new BadSubstitution(start, 'expected a variable name after ${');
    return name;
  }

  #operator(char: string, max: number): string {
    let operator = '';
    while (operator.length < max && this.#peek() === char) operator += this.#source.charAt(this.#index++);
    return operator;
  }

  #default(value: string, length: number): string {
    this.#index += length;
    const fallback = this.text(isClose, false);
    return value === '' ? fallback : value;
  }

  #substring(value: string, start: number): string {
    this.#index++;
    const position = this.text((char) => char === ':' || char === '}', false);
    if (this.#peek() !== ':') return substring(value, position, undefined);
    this.#index++;
    const length = this.text(isClose, false);
    if (this.#peek() !== '}') throw new BadSubstitution(start, 'expected } after the length');
    return substring(value, position, length);
  }

  #replace(value: string, start: number): string {
    this.#index++;
    const mode = '/#%'.includes(this.#peek()) ? this.#source.charAt(this.#index++) : '';
    const pattern = this.text((char) => char === '/' || char === '}');
    if (this.#peek() !== '/') throw new BadSubstitution(start, 'expected /replacement} after the pattern');
    this.#index++;
    const replacement = this.text(isClose);
    switch (mode) {
      case '/':
        return value.split(pattern).join(replacement);
      case '#':
        return value.startsWith(pattern) ? replacement + value.slice(pattern.length) : value;
      case '%':
        return value.endsWith(pattern) ? value.slice(0, value.length - pattern.length) + replacement : value;
      default:
        return value.replace(pattern, () => replacement);
    }
  }

  #close(start: number): void {
    if (this.#peek() !== '}') throw new BadSubstitution(start, 'expected } to close ${');
    this.#index++;
  }

  #peek(ahead = 0): string {
    return this.#source.charAt(this.#index + ahead);
  }
}

function isClose(char: string): boolean {
  return char === '}';
}

function casing(value: string, operator: string): string {
  const first = value.slice(0, 1);
  switch (operator) {
    case ',':
      return first.toLowerCase() + value.slice(1);
    case ',,':
      return value.toLowerCase();
    case '^':
      return first.toUpperCase() + value.slice(1);
    default:
      return value.toUpperCase();
  }
}

/** `${N:pos:len}`; as in bash, a position or length that is not a number leaves the value as it is. */
function substring(value: string, positionText: string, lengthText: string | undefined): string {
  let position = Number.parseInt(positionText.trim(), 10);
  if (!Number.isFinite(position)) return value;
  if (position < 0) position = Math.max(0, value.length + position);
  if (lengthText === undefined) return position < value.length ? value.slice(position) : '';
  const length = Number.parseInt(lengthText.trim(), 10);
  if (!Number.isFinite(length)) return value;
  return value.slice(position, position + length);
}

/** `#`/`##` strip the shortest/longest matching prefix, `%`/`%%` the suffix (Drone matches suffixes reversed). */
function trim(value: string, operator: string, pattern: string): string {
  const suffix = operator.startsWith('%');
  const subject = suffix ? reverse(value) : value;
  const glob = suffix ? reverse(pattern) : pattern;
  const longest = operator.length === 2;
  let match: string | undefined;
  for (let end = subject.length; end > 0; end--) {
    const prefix = subject.slice(0, end);
    if (!globMatch(glob, prefix)) continue;
    match = prefix;
    if (longest) break;
  }
  const result = match === undefined ? subject : subject.slice(match.length);
  return suffix ? reverse(result) : result;
}

function reverse(text: string): string {
  return [...text].reverse().join('');
}
