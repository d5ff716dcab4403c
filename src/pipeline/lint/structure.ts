import { isAlias, isMap, isScalar, isSeq, LineCounter, parseAllDocuments, type Node } from 'yaml';
import type { Diagnostic } from '../diagnostics.js';
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
 * (the linter says why).
 */
export function structureChange(
  raw: string,
  substituted: string,
  keep: (name: string) => boolean = () => false,
): Diagnostic | undefined {
  if (!raw.includes('${')) return undefined;
  // Names kept as written (a matrix's axes) are kept in both readings.
  const neutral = substituteVariables(raw, () => NEUTRAL, { keep });
  if (!neutral.ok) return undefined;
  const lines = new LineCounter();
  const authored = parseAllDocuments(neutral.text, { lineCounter: lines });
  const built = parseAllDocuments(substituted);
  if (!Array.isArray(authored) || authored.some((d) => d.errors.length > 0)) return undefined;
  const documents = Array.isArray(built) ? built : [];
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
