import { GoTemplateError, type Where } from './errors.js';
import { lex, type Token, type TokenType } from './lex.js';
import { numberOf } from './literals.js';
import { TokenCursor } from './cursor.js';
import type { Arg, Command, Node, Pipe, Tree } from './nodes.js';

type Ending = { kind: 'end' | 'else'; at: Where };

/** The tokens an operand starts with. */
const OPERAND_START = [
  'bool',
  'char',
  'dot',
  'field',
  'identifier',
  'number',
  'nil',
  'string',
  'variable',
  'open',
] as const;
type OperandStart = (typeof OPERAND_START)[number];

function isOperandStart(type: TokenType): type is OperandStart {
  return (OPERAND_START as readonly TokenType[]).includes(type);
}

/**
 * Parses a template as Go's text/template does: the same actions, keywords, trim markers and
 * literals, the same checks at parse time (functions must exist, variables must be declared,
 * `break`/`continue` only in `range`), the same messages.
 */
export function parseTemplate(source: string, isFunction: (name: string) => boolean): Tree {
  return new Parser(lex(source), isFunction).parse();
}

class Parser {
  readonly #t: TokenCursor;
  readonly #isFunction: (name: string) => boolean;
  #vars: string[] = ['$'];
  #rangeDepth = 0;
  readonly #defines = new Map<string, Node[]>();

  constructor(tokens: Token[], isFunction: (name: string) => boolean) {
    this.#t = new TokenCursor(tokens);
    this.#isFunction = isFunction;
  }

  parse(): Tree {
    const root: Node[] = [];
    while (this.#t.peek().type !== 'eof') {
      if (this.#t.peek().type === 'left' && this.#t.peekAfterLeft().text === 'define') {
        this.#t.next();
        this.#t.nextNonSpace();
        this.#define();
        continue;
      }
      const node = this.#textOrAction();
      if (isEnding(node)) throw new GoTemplateError(node.at, `unexpected {{${node.kind}}}`);
      root.push(node);
    }
    return { root, defines: this.#defines };
  }

  #define(): void {
    const name = this.#t.expect('string', 'define clause');
    this.#t.expect('right', 'define clause');
    const [list, ending] = this.#itemList();
    if (ending.kind !== 'end') throw new GoTemplateError(ending.at, 'unexpected {{else}} in define clause');
    this.#defines.set(name.text, list);
  }

  /** Nodes up to the `{{end}}` or `{{else}}` that closes them. */
  #itemList(): [Node[], Ending] {
    const list: Node[] = [];
    for (;;) {
      if (this.#t.peekNonSpace().type === 'eof')
        throw new GoTemplateError(this.#t.peek().at, 'unexpected EOF');
      const node = this.#textOrAction();
      if (isEnding(node)) return [list, node];
      list.push(node);
    }
  }

  #textOrAction(): Node | Ending {
    const token = this.#t.nextNonSpace();
    if (token.type === 'text') return { kind: 'text', at: token.at, text: token.text };
    if (token.type === 'left') return this.#action();
    this.#t.unexpected(token, 'input');
  }

  #action(): Node | Ending {
    const token = this.#t.nextNonSpace();
    if (token.type === 'keyword') {
      switch (token.text) {
        case 'block':
          return this.#block(token.at);
        case 'break':
        case 'continue':
          if (this.#rangeDepth === 0)
            throw new GoTemplateError(token.at, `{{${token.text}}} outside {{range}}`);
          this.#t.expect('right', token.text);
          return { kind: token.text, at: token.at };
        case 'else':
          if (this.#t.peekNonSpace().text !== 'if') this.#t.expect('right', 'else');
          return { kind: 'else', at: token.at };
        case 'end':
          this.#t.expect('right', 'end');
          return { kind: 'end', at: token.at };
        case 'if':
        case 'range':
        case 'with':
          return this.#control(token.text, token.at);
        case 'template':
          return this.#templateCall(token.at);
        default:
          this.#t.unexpected(token, 'command');
      }
    }
    this.#t.backup();
    const pipe = this.#pipeline('command', 'right');
    return { kind: 'action', at: token.at, pipe };
  }

  #control(kind: 'if' | 'range' | 'with', at: Where): Node {
    const mark = this.#vars.length;
    const pipe = this.#pipeline(kind, 'right');
    if (kind === 'range') this.#rangeDepth++;
    const [list, ending] = this.#itemList();
    if (kind === 'range') this.#rangeDepth--;
    let elseList: Node[] | undefined;
    if (ending.kind === 'else') {
      if (kind === 'if' && this.#t.peekNonSpace().text === 'if') {
        // {{else if b}}…{{end}} reads as {{else}}{{if b}}…{{end}}{{end}}: one {{end}} for both.
        const inner = this.#t.nextNonSpace();
        elseList = [this.#control('if', inner.at)];
      } else {
        const [rest, end] = this.#itemList();
        if (end.kind !== 'end') throw new GoTemplateError(end.at, 'expected end; found {{else}}');
        elseList = rest;
      }
    }
    this.#vars.length = mark;
    return { kind, at, pipe, list, elseList };
  }

  #templateCall(at: Where): Node {
    const name = this.#t.expect('string', 'template clause');
    let pipe: Pipe | undefined;
    if (this.#t.peekNonSpace().type !== 'right') pipe = this.#pipeline('template clause', 'right');
    else this.#t.expect('right', 'template clause');
    return { kind: 'template', at, name: name.text, pipe };
  }

  #block(at: Where): Node {
    const name = this.#t.expect('string', 'block clause');
    const pipe = this.#pipeline('block clause', 'right');
    const [list, ending] = this.#itemList();
    if (ending.kind !== 'end') throw new GoTemplateError(ending.at, 'unexpected {{else}} in block clause');
    this.#defines.set(name.text, list);
    return { kind: 'template', at, name: name.text, pipe };
  }

  #pipeline(context: string, end: 'right' | 'close'): Pipe {
    const at = this.#t.peekNonSpace().at;
    const decl: string[] = [];
    let isAssign = false;
    const start = this.#t.position;
    const first = this.#t.nextNonSpace();
    if (first.type === 'variable') {
      const after = this.#t.nextNonSpace();
      if (after.type === 'declare' || after.type === 'assign') {
        decl.push(first.text);
        isAssign = after.type === 'assign';
      } else if (after.type === 'comma' && context === 'range') {
        const second = this.#t.expect('variable', 'range');
        const op = this.#t.nextNonSpace();
        if (op.type !== 'declare' && op.type !== 'assign') this.#t.unexpected(op, 'range');
        decl.push(first.text, second.text);
        isAssign = op.type === 'assign';
      } else this.#t.position = start;
    } else this.#t.position = start;
    if (isAssign) for (const name of decl) this.#useVar(name, at);
    const cmds: Command[] = [];
    for (;;) {
      const token = this.#t.nextNonSpace();
      if (token.type === end) break;
      if (!isOperandStart(token.type)) this.#t.unexpected(token, context);
      this.#t.backup();
      cmds.push(this.#command(context));
    }
    if (cmds.length === 0) throw new GoTemplateError(at, `missing value for ${context}`);
    cmds.forEach((cmd, i) => {
      const head = cmd.args[0];
      if (i > 0 && head !== undefined && ['bool', 'dot', 'nil', 'number', 'string'].includes(head.kind))
        throw new GoTemplateError(cmd.at, `non executable command in pipeline stage ${i + 1}`);
    });
    if (!isAssign) this.#vars.push(...decl);
    return { at, decl, isAssign, cmds };
  }

  #command(context: string): Command {
    const at = this.#t.peekNonSpace().at;
    const args: Arg[] = [];
    for (;;) {
      this.#t.peekNonSpace();
      const operand = this.#operand();
      if (operand !== undefined) args.push(operand);
      const token = this.#t.next();
      if (token.type === 'space') continue;
      if (token.type === 'right' || token.type === 'close') this.#t.backup();
      else if (token.type !== 'pipe') this.#t.unexpected(token, `operand (${context})`);
      break;
    }
    if (args.length === 0) throw new GoTemplateError(at, 'empty command');
    return { at, args };
  }

  #operand(): Arg | undefined {
    const node = this.#term();
    if (node === undefined || this.#t.peek().type !== 'field') return node;
    const fields: string[] = [];
    while (this.#t.peek().type === 'field') fields.push(this.#t.next().text.slice(1));
    switch (node.kind) {
      case 'field':
        return { ...node, fields: [...node.fields, ...fields] };
      case 'variable':
        return { ...node, fields: [...node.fields, ...fields] };
      case 'bool':
      case 'string':
      case 'number':
      case 'nil':
      case 'dot':
        throw new GoTemplateError(node.at, `unexpected . after term "${termText(node)}"`);
      case 'chain':
      case 'identifier':
      case 'pipe':
        return { kind: 'chain', at: node.at, node, fields };
    }
  }

  #term(): Arg | undefined {
    const token = this.#t.nextNonSpace();
    const { at, text, type } = token;
    if (!isOperandStart(type)) {
      this.#t.backup();
      return undefined;
    }
    switch (type) {
      case 'identifier':
        if (!this.#isFunction(text)) throw new GoTemplateError(at, `function "${text}" not defined`);
        return { kind: 'identifier', at, name: text };
      case 'dot':
        return { kind: 'dot', at };
      case 'nil':
        return { kind: 'nil', at };
      case 'variable':
        this.#useVar(text, at);
        return { kind: 'variable', at, name: text, fields: [] };
      case 'field':
        return { kind: 'field', at, fields: [text.slice(1)] };
      case 'bool':
        return { kind: 'bool', at, value: text === 'true' };
      case 'char':
        return { kind: 'number', at, value: Number(text), text };
      case 'number':
        return { kind: 'number', at, value: numberOf(text, at), text };
      case 'string':
        return { kind: 'string', at, value: text };
      case 'open': {
        const pipe = this.#pipeline('parenthesized pipeline', 'close');
        return { kind: 'pipe', at, pipe };
      }
    }
  }

  #useVar(name: string, at: Where): void {
    if (!this.#vars.includes(name)) throw new GoTemplateError(at, `undefined variable "${name}"`);
  }
}

function isEnding(node: Node | Ending): node is Ending {
  return node.kind === 'end' || node.kind === 'else';
}

function termText(node: Arg): string {
  if (node.kind === 'string') return JSON.stringify(node.value);
  if (node.kind === 'number') return node.text;
  if (node.kind === 'bool') return String(node.value);
  return node.kind === 'dot' ? '.' : 'nil';
}
