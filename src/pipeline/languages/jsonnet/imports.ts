/**
 * Finds every `import`, `importstr` and `importbin` of a Jsonnet file before evaluation.
 *
 * Why a lexer of our own: the Jsonnet library resolves imports on the file system and offers no
 * import callback, so svc gives it a private folder holding only the repository files the program
 * imports. Jsonnet only allows a string literal after `import` ("computed imports are not
 * allowed"), so a lexer that knows comments and every string form finds them all; each path is
 * decoded as Jsonnet decodes it (escapes included) and must stay inside the repository.
 */
export interface JsonnetImport {
  readonly keyword: 'import' | 'importstr' | 'importbin';
  /** The path as Jsonnet reads it, escapes decoded. */
  readonly path: string;
  readonly line: number;
  readonly column: number;
}

export class ImportScanError extends Error {
  readonly line: number;
  readonly column: number;

  constructor(message: string, line: number, column: number) {
    super(message);
    this.line = line;
    this.column = column;
  }
}

const KEYWORDS = new Set(['import', 'importstr', 'importbin']);

export function scanImports(source: string): JsonnetImport[] {
  return new Scanner(source).imports();
}

type Token =
  | { kind: 'word'; text: string; at: number }
  | { kind: 'string'; value: string; block: boolean; at: number }
  | { kind: 'other'; at: number };

class Scanner {
  readonly #src: string;
  #at = 0;

  constructor(source: string) {
    this.#src = source;
  }

  imports(): JsonnetImport[] {
    const found: JsonnetImport[] = [];
    for (let token = this.#next(); token !== undefined; token = this.#next()) {
      if (token.kind !== 'word' || !KEYWORDS.has(token.text)) continue;
      const target = this.#next();
      const { line, column } = this.position(token.at);
      if (target?.kind !== 'string' || target.block) {
        throw new ImportScanError(`${token.text} needs a plain string literal path`, line, column);
      }
      found.push({ keyword: token.text as JsonnetImport['keyword'], path: target.value, line, column });
    }
    return found;
  }

  position(offset: number): { line: number; column: number } {
    const before = this.#src.slice(0, offset);
    const line = before.split('\n').length;
    return { line, column: offset - before.lastIndexOf('\n') };
  }

  #next(): Token | undefined {
    this.#skipSpaceAndComments();
    const src = this.#src;
    const at = this.#at;
    const c = src[at];
    if (c === undefined) return undefined;
    if (/[A-Za-z_]/.test(c)) {
      let end = at + 1;
      while (end < src.length && /[A-Za-z0-9_]/.test(src[end] ?? '')) end += 1;
      this.#at = end;
      return { kind: 'word', text: src.slice(at, end), at };
    }
    if (c === '"' || c === "'") return { kind: 'string', value: this.#quoted(c), block: false, at };
    if (c === '@' && (src[at + 1] === '"' || src[at + 1] === "'")) {
      return { kind: 'string', value: this.#verbatim(src[at + 1] ?? '"'), block: false, at };
    }
    if (src.startsWith('|||', at)) return { kind: 'string', value: this.#textBlock(), block: true, at };
    this.#at = at + 1;
    return { kind: 'other', at };
  }

  #skipSpaceAndComments(): void {
    const src = this.#src;
    for (;;) {
      const c = src[this.#at];
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r') this.#at += 1;
      else if (c === '#' || src.startsWith('//', this.#at)) this.#skipPast('\n', false);
      else if (src.startsWith('/*', this.#at)) {
        this.#at += 2;
        this.#skipPast('*/', true);
      } else return;
    }
  }

  #skipPast(end: string, required: boolean): void {
    const found = this.#src.indexOf(end, this.#at);
    if (found < 0) {
      if (required) this.#fail('a comment is not closed (missing */)');
      this.#at = this.#src.length;
    } else this.#at = found + end.length;
  }

  /** A "…" or '…' string with Jsonnet's escapes (JSON's, plus \' ). */
  #quoted(quote: string): string {
    const src = this.#src;
    let value = '';
    let i = this.#at + 1;
    for (;;) {
      const c = src[i];
      if (c === undefined) return this.#fail('a string is not closed');
      if (c === quote) break;
      if (c !== '\\') {
        value += c;
        i += 1;
        continue;
      }
      const e = src[i + 1];
      const simple: Record<string, string> = {
        '"': '"',
        "'": "'",
        '\\': '\\',
        '/': '/',
        b: '\b',
        f: '\f',
        n: '\n',
        r: '\r',
        t: '\t',
      };
      if (e !== undefined && e in simple) {
        value += simple[e];
        i += 2;
      } else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(src.slice(i + 2, i + 6))) {
        value += String.fromCharCode(parseInt(src.slice(i + 2, i + 6), 16));
        i += 6;
      } else {
        this.#at = i;
        return this.#fail('a string has an unknown escape');
      }
    }
    this.#at = i + 1;
    return value;
  }

  /** @"…" or @'…': no escapes, a doubled quote stands for one. */
  #verbatim(quote: string): string {
    const src = this.#src;
    let value = '';
    let i = this.#at + 2;
    for (;;) {
      const c = src[i];
      if (c === undefined) return this.#fail('a verbatim string is not closed');
      if (c === quote && src[i + 1] === quote) {
        value += quote;
        i += 2;
      } else if (c === quote) break;
      else {
        value += c;
        i += 1;
      }
    }
    this.#at = i + 1;
    return value;
  }

  /** A ||| text block: lines indented at least as the first one, up to the closing |||. */
  #textBlock(): string {
    const src = this.#src;
    let i = this.#at + 3;
    if (src[i] === '-') i += 1;
    while (src[i] === ' ' || src[i] === '\t' || src[i] === '\r') i += 1;
    if (src[i] !== '\n') return this.#fail('a text block must start on a new line after |||');
    i += 1;
    const indent = /^[ \t]*/.exec(src.slice(i))?.[0] ?? '';
    if (indent === '') return this.#fail('a text block must be indented');
    const lines: string[] = [];
    for (;;) {
      if (src[i] === '\n') {
        lines.push('');
        i += 1;
      } else if (src.startsWith(indent, i)) {
        const end = src.indexOf('\n', i);
        if (end < 0) return this.#fail('a text block is not closed (missing |||)');
        lines.push(src.slice(i + indent.length, end));
        i = end + 1;
      } else break;
    }
    while (src[i] === ' ' || src[i] === '\t') i += 1;
    if (!src.startsWith('|||', i)) return this.#fail('a text block is not closed (missing |||)');
    this.#at = i + 3;
    return lines.join('\n');
  }

  #fail(message: string): never {
    const { line, column } = this.position(this.#at);
    throw new ImportScanError(message, line, column);
  }
}
