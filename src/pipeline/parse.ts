import { LineCounter, parseAllDocuments, type Document } from 'yaml';
import { readDocument } from './decode/documents.js';
import { Diagnostics, type Diagnostic } from './diagnostics.js';
import type { Manifest } from './types.js';
import { buildTree } from './yaml/tree.js';
import { expandDependencies, expandMatrix } from './matrix/expand.js';
import { readMatrix } from './matrix/read.js';

/** A pipeline file read: every document svc could make sense of, and what is wrong with the file. */
export interface ParseResult {
  readonly manifest: Manifest;
  /** YAML errors, wrongly typed values, unknown fields (warnings); in file order. */
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * Reads a `.drone.yml`-style file: YAML 1.1 documents (as Drone's parser reads them) with anchors and
 * merge keys. It does not stop at the first problem: documents that can be read are returned with
 * defaults applied, and every problem found is in `diagnostics`. Cross-document rules (names, depends_on,
 * trust) are `lintManifest`'s.
 */
export function parseManifest(text: string): ParseResult {
  return parseManifestAndYaml(text).result;
}

/**
 * parseManifest, with the YAML documents it read (for the structure check of a substituted file,
 * which would otherwise parse the same text a second time).
 */
export function parseManifestAndYaml(text: string): {
  result: ParseResult;
  yaml: readonly Document.Parsed[];
} {
  const lineCounter = new LineCounter();
  const documents = parseAllDocuments(text, {
    lineCounter,
    version: '1.1',
    uniqueKeys: false,
    prettyErrors: false,
  });
  const yaml = Array.isArray(documents) ? documents : [];
  return { result: readDocuments(yaml, lineCounter), yaml };
}

function readDocuments(documents: readonly Document.Parsed[], lineCounter: LineCounter): ParseResult {
  const diagnostics = new Diagnostics();
  const manifest: Manifest['documents'][number][] = [];
  /** Each matrix pipeline's name, and its combinations' (svc's `matrix:`). */
  const matrices = new Map<string, string[]>();
  for (const doc of documents) {
    if (doc.errors.length > 0) {
      for (const error of doc.errors) {
        const { line, col } = lineCounter.linePos(error.pos[0]);
        diagnostics.error(
          { line, column: col },
          '',
          `YAML syntax: ${syntaxMessage(error.code, error.message)}`,
        );
      }
      continue;
    }
    for (const warning of doc.warnings) {
      const { line, col } = lineCounter.linePos(warning.pos[0]);
      diagnostics.warning(
        { line, column: col },
        '',
        `YAML: ${syntaxMessage(warning.code, warning.message)}; the value is read as plain text`,
      );
    }
    const tree = buildTree(doc, lineCounter, diagnostics);
    if (tree === undefined) continue;
    const matrixNode = tree.kind === 'map' ? tree.entries.find((entry) => entry.key === 'matrix') : undefined;
    // A matrix pipeline as written holds `${AXIS}` where its combinations hold values: what is
    // wrong with it is said by reading each combination.
    const own = matrixNode === undefined ? diagnostics : new Diagnostics();
    const document = readDocument(tree, own);
    const combinations =
      document?.kind === 'pipeline' && matrixNode !== undefined
        ? readMatrix(matrixNode.value, 'matrix', diagnostics)
        : undefined;
    if (document === undefined || combinations === undefined || tree.kind !== 'map') {
      if (own !== diagnostics) diagnostics.addAll(own.list());
      if (document !== undefined) manifest.push(document);
      continue;
    }
    const expanded = expandMatrix(tree, document.name, combinations, readDocument, diagnostics);
    matrices.set(
      document.name,
      expanded.map((pipeline) => pipeline.name),
    );
    manifest.push(...expanded);
  }
  return {
    manifest: { documents: expandDependencies(manifest, matrices) },
    diagnostics: diagnostics.list(),
  };
}

/** The parser's message, with the fix for the mistakes people make most. */
function syntaxMessage(code: string, message: string): string {
  const first = message.split('\n')[0] ?? message;
  switch (code) {
    case 'TAB_AS_INDENT':
      return `${first}; expected spaces for indentation`;
    case 'DUPLICATE_KEY':
    case 'BAD_INDENT':
    case 'MISSING_CHAR':
      return `${first}; check the indentation and the ":" after each key`;
    default:
      return first;
  }
}
