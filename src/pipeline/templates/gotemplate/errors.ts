/** A position in a template: 1-based line and column. */
export interface Where {
  readonly line: number;
  readonly column: number;
}

/**
 * A template that cannot be parsed or executed, at a position: the message reads as Go's
 * text/template says it (`function "foo" not defined`, `at <.input.x>: error calling upper: …`).
 */
export class GoTemplateError extends Error {
  readonly at: Where;

  constructor(at: Where, message: string) {
    super(message);
    this.name = 'GoTemplateError';
    this.at = at;
  }
}
