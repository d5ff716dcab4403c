import {
  isAlias,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  parseAllDocuments,
  type Document,
  type Node,
} from 'yaml';
import type { Diagnostic } from '../diagnostics.js';
import { parseManifestAndYaml } from '../parse.js';
import { substituteVariables } from '../substitute.js';

/**
 * What every variable becomes in the file the structure is read from: nothing in it means anything
 * to YAML, so that file's structure is the one its author wrote.
 */
const NEUTRAL = 'svcvalue';

/**
 * An error when the build's variables change the structure of the file: a value — a commit message,
 * a pull request's title, a branch name, an author's name, all of them written by whoever pushed —
 * that adds or removes a mapping entry, a list item or a document once substituted into the raw
 * text (`{cmd: echo ${DRONE_COMMIT_TITLE}}` with a title `x, privileged: true`). Drone substitutes
 * in the raw text and lets such a value rewrite the pipeline, which is how commit metadata got past
 * approval (CVE-2026-58370's class). The file is read twice: with every variable replaced by a
 * neutral word (the author's structure), and with the real values; mapping keys, list lengths and
 * the kinds of nodes must agree. Undefined when they do, or when the file does not parse either way
 * (the linter says why). `built`: the substituted text's documents when the caller parsed them
 * already; `readings`: where the author's readings of files read before are kept (a server's
 * trigger keeps some: a busy repository's pushes rarely change their pipeline file).
 */
export function structureChange(
  raw: string,
  substituted: string,
  keep: (name: string) => boolean = () => false,
  built?: readonly Document.Parsed[],
  readings?: FileReadings,
): Diagnostic | undefined {
  if (!raw.includes('${')) return undefined;
  // Names kept as written (a matrix's axes) are kept in both readings.
  const neutral = substituteVariables(raw, () => NEUTRAL, { keep });
  if (!neutral.ok) return undefined;
  const reading = readings === undefined ? readAuthored(neutral.text) : readings.of(neutral.text);
  if (reading === undefined) return undefined;
  const { documents: authored, lines } = reading;
  const documents = built ?? parsed(substituted);
  if (documents.length !== authored.length || documents.some((d) => d.errors.length > 0)) {
    return problem(1, 'the documents of the file');
  }
  for (const [index, document] of authored.entries()) {
    const differs = firstDifference(document.contents, documents[index]?.contents ?? null, '');
    if (differs !== undefined) {
      const at = lines.linePos(differs.node?.range?.[0] ?? 0);
      return problem(at.line, differs.path === '' ? `document ${index + 1}` : differs.path);
    }
  }
  return undefined;
}

/**
 * Values that cannot change the structure of the YAML they are put in, wherever that is: a word of
 * letters, digits and `. _ / + @ = -`, starting with a letter or digit — what commit hashes,
 * branch names, build numbers and most build variables are. In place of the neutral word they
 * leave every map, list and document as it was (no `:`, `#`, quote, bracket, comma, space, line
 * break; nothing that starts an indicator), so a file whose every substituted value is one needs no
 * second reading.
 */
export function cannotChangeStructure(value: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9._/+@=-]*$/.test(value);
}

/** The author's structure of a file: its documents with every variable neutral, and their lines. */
type AuthoredReading = { documents: Document.Parsed[]; lines: LineCounter } | undefined;

function readAuthored(neutral: string): AuthoredReading {
  const lines = new LineCounter();
  const documents = parsed(neutral, lines);
  return documents.some((d) => d.errors.length > 0) ? undefined : { documents, lines };
}

/**
 * The readings of the last few files read (`kept`, default 8), by their text: the author's
 * structure (by the neutral text) and the parse of the text a build reads. A busy repository's
 * pushes rarely change their pipeline file, and when the file names no per-commit variable every
 * build reads the same text: it is then parsed once. What is kept is never changed by its readers.
 */
export class FileReadings {
  readonly #authored: Recent<AuthoredReading>;
  readonly #parsed: Recent<ReturnType<typeof parseManifestAndYaml>>;

  constructor(kept = 8) {
    this.#authored = new Recent(kept);
    this.#parsed = new Recent(kept);
  }

  /** The author's structure of a file, by its neutral text. */
  of(neutral: string): AuthoredReading {
    return this.#authored.get(neutral, () => readAuthored(neutral));
  }

  /** parseManifestAndYaml of a build's text. */
  parse(text: string): ReturnType<typeof parseManifestAndYaml> {
    return this.#parsed.get(text, () => parseManifestAndYaml(text));
  }
}

/** The last `size` values made, by key; the least recently used goes first. */
class Recent<T> {
  readonly #size: number;
  readonly #values = new Map<string, T>();

  constructor(size: number) {
    this.#size = size;
  }

  get(key: string, make: () => T): T {
    if (this.#values.has(key)) {
      const value = this.#values.get(key) as T;
      this.#values.delete(key);
      this.#values.set(key, value);
      return value;
    }
    const value = make();
    this.#values.set(key, value);
    if (this.#values.size > this.#size) this.#values.delete(this.#values.keys().next().value ?? '');
    return value;
  }
}

function parsed(text: string, lineCounter?: LineCounter): Document.Parsed[] {
  const documents = parseAllDocuments(text, lineCounter === undefined ? {} : { lineCounter });
  return Array.isArray(documents) ? documents : [];
}

interface Difference {
  readonly path: string;
  readonly node: Node | null;
}

/** Where the built tree first differs in structure from the authored one. */
function firstDifference(authored: Node | null, built: Node | null, path: string): Difference | undefined {
  if (isMap(authored)) {
    if (!isMap(built) || built.items.length !== authored.items.length) return { path, node: authored };
    for (const [i, pair] of authored.items.entries()) {
      const other = built.items[i];
      const key = isScalar(pair.key) ? String(pair.key.value) : '?';
      const otherKey = isScalar(other?.key) ? String(other.key.value) : '?';
      const here = path === '' ? key : `${path}.${key}`;
      // A key the author built from a variable may become anything; any other must stay itself.
      if (key !== otherKey && !key.includes(NEUTRAL)) return { path: here, node: pair.key as Node };
      const deeper = firstDifference(pair.value as Node | null, (other?.value ?? null) as Node | null, here);
      if (deeper !== undefined) return deeper;
    }
    return undefined;
  }
  if (isSeq(authored)) {
    if (!isSeq(built) || built.items.length !== authored.items.length) return { path, node: authored };
    for (const [i, item] of authored.items.entries()) {
      const deeper = firstDifference(
        item as Node | null,
        (built.items[i] ?? null) as Node | null,
        `${path}[${i}]`,
      );
      if (deeper !== undefined) return deeper;
    }
    return undefined;
  }
  if (isAlias(authored)) return isAlias(built) ? undefined : { path, node: authored };
  // A scalar (or nothing) must stay one: a value must not become a mapping or a list.
  return isMap(built) || isSeq(built) || isAlias(built) ? { path, node: authored } : undefined;
}

function problem(line: number, where: string): Diagnostic {
  return {
    severity: 'error',
    line,
    column: 1,
    field: '',
    message:
      `the build's variables change the structure of the pipeline file at ${where}: a value such as a ` +
      `commit message, a title or a branch name, substituted into \${…}, would add or remove YAML ` +
      `structure, so the build does not run. In commands, write $NAME (without braces): the shell reads ` +
      `it when the step runs, and YAML never sees the value`,
  };
}
