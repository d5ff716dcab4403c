import { decodeEntities, xmlError } from './xml-entities.js';
import { lineAndColumn, MAX_XML_DEPTH } from './limits.js';

/** An element of a parsed document: only what test reports need (no namespaces, no mixed order). */
export interface XmlElement {
  name: string;
  attributes: Map<string, string>;
  children: XmlElement[];
  /** All text and CDATA directly inside the element, concatenated. */
  text: string;
}

interface OpenElement {
  element: XmlElement;
  textParts: string[];
  offset: number;
}

/**
 * Reads an XML document into a tree. Every step moves forward with indexOf or one character at a
 * time, so the work is linear in the input; nesting is capped at MAX_XML_DEPTH. Any `<!DOCTYPE`,
 * `<!ENTITY` or other declaration is refused, which rules out entity expansion and external
 * entities altogether. Throws InvalidInputError naming the line and column.
 */
export function parseXml(text: string): XmlElement {
  return new XmlReader(text).read();
}

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
const NAME_END = new Set([' ', '\t', '\n', '\r', '/', '>', '=', '<', '"', "'"]);

class XmlReader {
  private pos = 0;
  private readonly stack: OpenElement[] = [];
  private root: XmlElement | undefined;

  constructor(private readonly src: string) {}

  read(): XmlElement {
    if (this.src.startsWith('\uFEFF')) this.pos = 1;
    while (this.pos < this.src.length) {
      if (this.src[this.pos] === '<') this.markup();
      else this.textRun();
    }
    const open = this.stack.at(-1);
    if (open) this.fail(open.offset, `<${open.element.name}> is never closed (unexpected end of input)`);
    if (!this.root) this.fail(this.pos, 'expected a root element, found none');
    return this.root;
  }

  private markup(): void {
    const src = this.src;
    if (src.startsWith('<!--', this.pos)) {
      this.pos = this.skipPast('-->', this.pos + 4, 'comment');
    } else if (src.startsWith('<![CDATA[', this.pos)) {
      const end = this.skipPast(']]>', this.pos + 9, 'CDATA section');
      this.addText(src.slice(this.pos + 9, end - 3), this.pos);
      this.pos = end;
    } else if (src.startsWith('<!', this.pos)) {
      const what = src.startsWith('<!DOCTYPE', this.pos) ? 'DOCTYPE' : 'declarations such as ENTITY';
      this.fail(this.pos, `${what} not allowed: test reports need no DTD, and DTD entities can be abused`);
    } else if (src.startsWith('<?', this.pos)) {
      this.pos = this.skipPast('?>', this.pos + 2, 'processing instruction');
    } else if (src.startsWith('</', this.pos)) {
      this.endTag();
    } else {
      this.startTag();
    }
  }

  private startTag(): void {
    const start = this.pos;
    this.pos++;
    const name = this.name('an element name after <');
    if (this.root && this.stack.length === 0) this.fail(start, `a second root element <${name}>`);
    if (this.stack.length >= MAX_XML_DEPTH) this.fail(start, `elements nested deeper than ${MAX_XML_DEPTH}`);
    const element: XmlElement = { name, attributes: new Map(), children: [], text: '' };
    for (;;) {
      this.skipWhitespace();
      const c = this.src[this.pos];
      if (c === '>' || (c === '/' && this.src[this.pos + 1] === '>')) {
        this.pos += c === '>' ? 1 : 2;
        this.open(element, start, c === '/');
        return;
      }
      if (c === undefined) this.fail(start, `<${name}> is never closed (unexpected end of input)`);
      this.attribute(element);
    }
  }

  private attribute(element: XmlElement): void {
    const name = this.name(`an attribute name, '>' or '/>' in <${element.name}>`);
    this.skipWhitespace();
    if (this.src[this.pos] !== '=') this.fail(this.pos, `expected '=' after attribute ${name}`);
    this.pos++;
    this.skipWhitespace();
    const quote = this.src[this.pos];
    if (quote !== '"' && quote !== "'") this.fail(this.pos, `expected a quoted value for attribute ${name}`);
    const valueStart = this.pos + 1;
    const end = this.src.indexOf(quote, valueStart);
    if (end === -1) this.fail(this.pos, `the value of attribute ${name} is never closed`);
    const raw = this.src.slice(valueStart, end);
    const lt = raw.indexOf('<');
    if (lt !== -1) this.fail(valueStart + lt, `'<' is not allowed in attribute values (write &lt;)`);
    const value = decodeEntities(raw, (i, message) => this.fail(valueStart + i, message));
    if (!element.attributes.has(name)) element.attributes.set(name, value);
    this.pos = end + 1;
  }

  private open(element: XmlElement, offset: number, selfClosing: boolean): void {
    const parent = this.stack.at(-1);
    if (parent) parent.element.children.push(element);
    else this.root = element;
    if (!selfClosing) this.stack.push({ element, textParts: [], offset });
  }

  private endTag(): void {
    const start = this.pos;
    this.pos += 2;
    const name = this.name('an element name after </');
    this.skipWhitespace();
    if (this.src[this.pos] !== '>') this.fail(this.pos, `expected '>' to end </${name}`);
    this.pos++;
    const open = this.stack.pop();
    if (!open) this.fail(start, `</${name}> closes nothing`);
    if (open.element.name !== name) {
      const { line, column } = lineAndColumn(this.src, open.offset);
      this.fail(start, `expected </${open.element.name}> (opened at ${line}:${column}), found </${name}>`);
    }
    open.element.text = open.textParts.join('');
  }

  private textRun(): void {
    const start = this.pos;
    const lt = this.src.indexOf('<', start);
    const end = lt === -1 ? this.src.length : lt;
    this.addText(
      decodeEntities(this.src.slice(start, end), (i, message) => this.fail(start + i, message)),
      start,
    );
    this.pos = end;
  }

  private addText(text: string, offset: number): void {
    const open = this.stack.at(-1);
    if (open) open.textParts.push(text);
    else if (text.trim() !== '') this.fail(offset, 'expected markup, found text outside the root element');
  }

  private name(expected: string): string {
    const start = this.pos;
    while (this.pos < this.src.length && !NAME_END.has(this.src[this.pos] ?? '')) this.pos++;
    if (this.pos === start) this.fail(start, `expected ${expected}`);
    return this.src.slice(start, this.pos);
  }

  private skipWhitespace(): void {
    while (WHITESPACE.has(this.src[this.pos] ?? '')) this.pos++;
  }

  /** The offset just past the next `terminator` from `from`; fails if the construct never ends. */
  private skipPast(terminator: string, from: number, what: string): number {
    const end = this.src.indexOf(terminator, from);
    if (end === -1) this.fail(this.pos, `${what} is never closed (expected '${terminator}')`);
    return end + terminator.length;
  }

  private fail(offset: number, message: string): never {
    const { line, column } = lineAndColumn(this.src, offset);
    throw xmlError(`line ${line}, column ${column}`, message);
  }
}
