import type { Where } from './errors.js';

/** What the lexer finds, as Go's text/template/parse lexer names it. */
export type TokenType =
  | 'text'
  | 'left' // {{
  | 'right' // }}
  | 'space'
  | 'identifier'
  | 'keyword'
  | 'field' // .Name
  | 'variable' // $ or $name
  | 'dot'
  | 'string' // its value, unquoted
  | 'char' // its code point, as a number's text
  | 'number'
  | 'bool'
  | 'nil'
  | 'pipe'
  | 'open'
  | 'close'
  | 'declare' // :=
  | 'assign' // =
  | 'comma'
  | 'eof';

export interface Token {
  readonly type: TokenType;
  readonly text: string;
  readonly at: Where;
}
