import { LineCounter, parseAllDocuments, type Document } from 'yaml';
import { readDocument } from '../decode/documents.js';
import { Diagnostics, diagnosticText, type Position } from '../diagnostics.js';
import type { TemplateDocument } from '../types.js';
import { buildTree } from '../yaml/tree.js';

/** A stretch of the file: text kept as written, or a `kind: template` document to render in its place. */
export type FilePart =
  | { readonly kind: 'text'; readonly text: string }
  | {
      readonly kind: 'template';
      readonly document: TemplateDocument;
      /** Where its `load:` value is (the document's start when it has none). */
      readonly at: Position;
    };

/** Cheap test before parsing: a file with no `kind: template` line has nothing to render. */
const TEMPLATE_KIND = /^kind:[ \t]*["']?template["']?[ \t\r]*(#.*)?$/m;

/** Whether the text may hold a `kind: template` document (never false for one that does). */
export function mayHoldTemplates(text: string): boolean {
  return TEMPLATE_KIND.test(text);
}

/**
 * Cuts a pipeline file into its documents, each with the `---` and comments before it, and reads
 * the `kind: template` ones (`load:`, `data:`) with the pipeline file's own rules; undefined when
 * there is none. A template document that cannot be read is an error naming its line and field; a
 * document with a YAML error is kept as text, for lint to report as it does for any file.
 */
export function splitTemplates(text: string): FilePart[] | undefined {
  if (!mayHoldTemplates(text)) return undefined;
  const lineCounter = new LineCounter();
  const documents = parseAllDocuments(text, {
    lineCounter,
    version: '1.1',
    uniqueKeys: false,
    prettyErrors: false,
  });
  if (!Array.isArray(documents)) return undefined;
  const parts: FilePart[] = [];
  let start = 0;
  let found = false;
  documents.forEach((doc, i) => {
    const end = i === documents.length - 1 ? text.length : doc.range[2];
    const template = doc.errors.length === 0 ? templateOf(doc, lineCounter) : undefined;
    if (template === undefined) parts.push({ kind: 'text', text: text.slice(start, end) });
    else {
      found = true;
      parts.push({ kind: 'template', ...template });
    }
    start = end;
  });
  return found ? parts : undefined;
}

function templateOf(
  doc: Document.Parsed,
  lineCounter: LineCounter,
): { document: TemplateDocument; at: Position } | undefined {
  const probe = new Diagnostics();
  const tree = buildTree(doc, lineCounter, probe);
  if (tree?.kind !== 'map') return undefined;
  const kind = tree.entries.find((entry) => entry.key === 'kind')?.value;
  if (kind?.kind !== 'scalar' || kind.text !== 'template') return undefined;
  const diagnostics = new Diagnostics();
  const document = readDocument(tree, diagnostics);
  const [problem] = diagnostics.list().filter((d) => d.severity === 'error');
  if (problem !== undefined) throw new TemplateDocumentError(problem, diagnosticText(problem));
  if (document?.kind !== 'template') return undefined;
  const load = tree.entries.find((entry) => entry.key === 'load');
  return { document, at: load?.value.position ?? document.position };
}

/** A `kind: template` document that cannot be read: where, and what is wrong. */
export class TemplateDocumentError extends Error {
  readonly at: Position;

  constructor(at: Position, message: string) {
    super(message);
    this.name = 'TemplateDocumentError';
    this.at = at;
  }
}
