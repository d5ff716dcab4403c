import { GoTemplateError } from './errors.js';
import type { Token, TokenType } from './tokens.js';

const QUOTED: Partial<Record<TokenType, string>> = {
  right: '"}}"',
  left: '"{{"',
  close: '")"',
  open: '"("',
};

function describe(token: Token): string {
  if (token.type === 'keyword') return `<${token.text}>`;
  if (token.type === 'string') return JSON.stringify(token.text);
  return QUOTED[token.type] ?? `"${token.text}"`;
}

/** The parser's position in the tokens: look ahead, take, step back, expect. */
export class TokenCursor {
  readonly #tokens: readonly Token[];
  /** The next token's index; past the end means the end of the input. */
  position = 0;

  constructor(tokens: readonly Token[]) {
    this.#tokens = tokens;
  }

  peek(): Token {
    return this.#tokens[this.position] ?? this.#eof();
  }

  next(): Token {
    const token = this.peek();
    this.position++;
    return token;
  }

  backup(): void {
    this.position--;
  }

  nextNonSpace(): Token {
    let token = this.next();
    while (token.type === 'space') token = this.next();
    return token;
  }

  peekNonSpace(): Token {
    const token = this.nextNonSpace();
    this.backup();
    return token;
  }

  /** The first word after the `{{` that comes next. */
  peekAfterLeft(): Token {
    let i = this.position + 1;
    while (this.#tokens[i]?.type === 'space') i++;
    return this.#tokens[i] ?? this.#eof();
  }

  expect(type: TokenType, context: string): Token {
    const token = this.nextNonSpace();
    if (token.type !== type) this.unexpected(token, context);
    return token;
  }

  unexpected(token: Token, context: string): never {
    if (token.type === 'eof') throw new GoTemplateError(token.at, `unexpected EOF in ${context}`);
    throw new GoTemplateError(token.at, `unexpected ${describe(token)} in ${context}`);
  }

  #eof(): Token {
    const last = this.#tokens[this.#tokens.length - 1];
    return last ?? { type: 'eof', text: '', at: { line: 1, column: 1 } };
  }
}
