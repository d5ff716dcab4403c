import { createHmac, timingSafeEqual } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { parseAllDocuments, parseDocument } from 'yaml';
import { parseManifest } from '../../pipeline/index.js';

/**
 * One document of a pipeline file as Drone's signer splits it: the lines between `---` separators
 * (each with its newline), and the document's `kind`.
 */
interface RawDocument {
  readonly text: string;
  readonly kind: string;
}

/** The file cannot be split into YAML documents; the message names the document. */
export class SignatureFileError extends Error {}

/** Drone's signer refuses keys shorter than this; svc's keys are 32 bytes. */
const MIN_KEY_BYTES = 32;

/**
 * The HMAC-SHA256 (hex) of a pipeline file with the repository's key, computed as Drone's signer
 * does so that files signed by Drone keep verifying: over the text of every document except
 * `kind: signature` ones, so adding or replacing the signature does not change it.
 */
export function signatureOf(text: string, key: string): string {
  return hmacOf(splitDocuments(text), key).toString('hex');
}

/**
 * The file with its signature: every document but old signatures, then a `kind: signature`
 * document with the HMAC (Drone's layout, `...` ending the file).
 */
export function signFile(text: string, key: string): { hmac: string; file: string } {
  const documents = splitDocuments(text);
  const hmac = hmacOf(documents, key).toString('hex');
  const kept = documents.filter((document) => document.kind !== 'signature');
  const file = `${kept.map((document) => `---\n${document.text}`).join('')}---\nkind: signature\nhmac: ${hmac}\n\n...\n`;
  return { hmac, file };
}

/**
 * Whether the file carries a `kind: signature` document whose HMAC is the file's with this key.
 * A file without one, with a malformed one, that does not parse, or a repository without a key is
 * simply not signed: false, never an error (the trigger then blocks the build as before).
 */
export function hasValidSignature(text: string, key: string): boolean {
  if (Buffer.byteLength(key, 'utf8') < MIN_KEY_BYTES) return false;
  let documents: RawDocument[];
  try {
    documents = splitDocuments(text);
  } catch {
    return false;
  }
  const claimed = claimedHmac(documents);
  if (claimed === undefined || !documents.every(isWhole)) return false;
  const actual = hmacOf(documents, key);
  if (claimed.length !== actual.length || !timingSafeEqual(claimed, actual)) return false;
  return readsAsSigned(text, documents);
}

/**
 * YAML as the pipeline parser reads it (src/pipeline/parse.ts): version 1.1, repeated keys allowed.
 */
const PIPELINE_YAML = { version: '1.1', uniqueKeys: false } as const;

/**
 * Whether the YAML parser reads from the whole file exactly the documents the HMAC covers. Drone's
 * split hashes neither what follows a `...` line nor what shares a line with `---`, while YAML reads
 * both: a document appended after the signed file's `...`, or a `--- {kind: pipeline, …}` line, would
 * otherwise run on a signature that never covered it. Comments and blank lines differ in neither.
 */
function readsAsSigned(text: string, documents: readonly RawDocument[]): boolean {
  try {
    const parsed = parseAllDocuments(text, PIPELINE_YAML);
    if (!Array.isArray(parsed) || parsed.some((document) => document.errors.length > 0)) return false;
    const read = parsed.map((document) => document.toJS() as unknown).filter(isPipelineContent);
    const signed = documents
      .filter((document) => document.kind !== 'signature')
      .map((document) => parseDocument(document.text, PIPELINE_YAML).toJS() as unknown)
      .filter(isPipelineContent);
    if (!isDeepStrictEqual(read, signed)) return false;
    // YAML's reading lets the last of repeated keys win, the pipeline parser the first: a document
    // after `...` with `kind: pipeline` and then `kind: signature` was a signature to the first
    // comparison and a pipeline to svc. What counts in the end is what svc runs.
    const signedText = documents
      .filter((document) => document.kind !== 'signature')
      .map((document) => `---\n${document.text}`)
      .join('');
    return isDeepStrictEqual(runnable(text), runnable(signedText));
  } catch {
    // toJS refuses an alias bomb: what cannot be read cannot be what was signed.
    return false;
  }
}

/**
 * Drone's HMAC covers the documents' text but not the `---` lines between them, so the same signature
 * holds for the signed bytes cut into documents elsewhere: a `---` inserted before `trigger:` would
 * make a pipeline without its trigger plus a document of its own, and a `---` removed would merge two
 * documents into one with every key twice. A covered document must therefore be whole: empty, or a
 * map that names its `kind` and repeats no key (a file that is not is simply not signed).
 */
function isWhole(document: RawDocument): boolean {
  if (document.kind === 'signature') return true;
  const parsed = parseDocument(document.text, { ...PIPELINE_YAML, uniqueKeys: true });
  if (parsed.errors.length > 0) return false;
  return document.kind !== '' || parsed.contents === null;
}

/** The documents the pipeline parser reads from a file, but signatures, without their positions. */
function runnable(text: string): unknown {
  const documents = parseManifest(text).manifest.documents.filter(
    (document) => document.kind !== 'signature',
  );
  return JSON.parse(
    JSON.stringify(documents, (key, value: unknown) =>
      key === 'position' || key === 'locations' ? undefined : value,
    ),
  ) as unknown;
}

/** A document the parser makes something of: not empty, not a signature. */
function isPipelineContent(value: unknown): boolean {
  if (value === null || value === undefined) return false;
  return !(typeof value === 'object' && (value as { kind?: unknown }).kind === 'signature');
}

/** The first signature document's `hmac`, decoded; undefined when absent or not hex. */
function claimedHmac(documents: readonly RawDocument[]): Buffer | undefined {
  const signature = documents.find((document) => document.kind === 'signature');
  if (signature === undefined) return undefined;
  const value: unknown = parseDocument(signature.text).get('hmac');
  if (typeof value !== 'string' || !/^(?:[0-9a-fA-F]{2})+$/.test(value)) return undefined;
  return Buffer.from(value, 'hex');
}

function hmacOf(documents: readonly RawDocument[], key: string): Buffer {
  if (Buffer.byteLength(key, 'utf8') < MIN_KEY_BYTES)
    throw new Error(`a signing key must have at least ${MIN_KEY_BYTES} bytes`);
  const mac = createHmac('sha256', Buffer.from(key, 'utf8'));
  for (const document of documents) if (document.kind !== 'signature') mac.update(document.text, 'utf8');
  return mac.digest();
}

/**
 * Splits the file the way Drone's signer does, since the HMAC covers exactly these bytes: a line
 * starting with `---` begins a new document (and is not part of it), a line starting with `...`
 * ends the file, a carriage return before a newline is dropped, every kept line gets a newline.
 */
function splitDocuments(text: string): RawDocument[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const chunks: string[][] = [];
  let current: string[] | undefined;
  for (const raw of lines) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.startsWith('---')) current = undefined;
    if (current === undefined) {
      current = [];
      chunks.push(current);
    }
    if (line.startsWith('---')) continue;
    if (line.startsWith('...')) break;
    current.push(`${line}\n`);
  }
  return chunks.map((chunk, index) => {
    const chunkText = chunk.join('');
    return { text: chunkText, kind: kindOf(chunkText, index + 1) };
  });
}

/** The document's `kind`, '' when it has none; a document that is not YAML or not a map is an error. */
function kindOf(text: string, number: number): string {
  const document = parseDocument(text);
  const [error] = document.errors;
  if (error !== undefined)
    throw new SignatureFileError(`document ${number}: ${error.message.split('\n')[0] ?? ''}`);
  let value: unknown;
  try {
    value = document.toJS();
  } catch (error) {
    throw new SignatureFileError(
      `document ${number}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (value === null || value === undefined) return '';
  if (typeof value !== 'object' || Array.isArray(value))
    throw new SignatureFileError(`document ${number} is not a map of fields`);
  const kind = (value as Record<string, unknown>).kind;
  return typeof kind === 'string' ? kind : '';
}
