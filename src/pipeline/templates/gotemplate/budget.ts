import { GoTemplateError, type Where } from './errors.js';
import type { GoValue } from './values.js';

/** How far one execution may go: steps (actions, commands, iterations), output, nested templates. */
export interface ExecLimits {
  readonly steps: number;
  readonly outputBytes: number;
  readonly depth: number;
}

/** The output of one execution, and the work it may still do; a limit reached is an error saying which. */
export class Output {
  readonly #limits: ExecLimits;
  readonly #out: string[] = [];
  #bytes = 0;
  #steps = 0;

  constructor(limits: ExecLimits) {
    this.#limits = limits;
  }

  step(at: Where): void {
    this.#steps++;
    if (this.#steps > this.#limits.steps)
      throw new GoTemplateError(at, `stopped after ${this.#limits.steps} steps (a limit of templates)`);
  }

  write(text: string, at: Where): void {
    this.#bytes += Buffer.byteLength(text);
    if (this.#bytes > this.#limits.outputBytes)
      throw new GoTemplateError(
        at,
        `the output is larger than the limit of ${this.#limits.outputBytes} bytes (a limit of templates)`,
      );
    this.#out.push(text);
  }

  text(): string {
    return this.#out.join('');
  }
}

interface Variable {
  readonly name: string;
  value: GoValue;
}

/** The variables in scope: declared ones pushed, a control structure's dropped at its end (`mark`/`reset`). */
export class Scope {
  #vars: Variable[];

  constructor(dollar: GoValue) {
    this.#vars = [{ name: '$', value: dollar }];
  }

  mark(): number {
    return this.#vars.length;
  }

  reset(mark: number): void {
    this.#vars.length = mark;
  }

  /** `$x := v` declares; `$x = v` assigns the innermost `$x`. */
  set(name: string, value: GoValue, assign: boolean): void {
    const found = assign ? this.#vars.findLast((variable) => variable.name === name) : undefined;
    if (found !== undefined) found.value = value;
    else if (!assign) this.#vars.push({ name, value });
  }

  find(name: string): Variable | undefined {
    return this.#vars.findLast((variable) => variable.name === name);
  }
}
