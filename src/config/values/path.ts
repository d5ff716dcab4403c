import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { z } from 'zod';
import { fail, ok, type Codec, type ParseContext, type Parsed } from './codec.js';

const EXPECTED = 'the path of a readable file (relative paths start at the working directory)';

/** A file that exists and is readable; the value is its absolute path. */
export const filePath: Codec<string> = {
  type: 'path',
  expected: EXPECTED,
  parse: (raw, ctx) => readableFile(raw, ctx),
  print: (value) => value,
};

/** SVC_NAMESPACE_RULES_FILE once read: the file and its rules, namespace → repository patterns. */
export interface NamespaceRulesFile {
  readonly path: string;
  readonly rules: Readonly<Record<string, readonly string[]>>;
}

const RULES_EXPECTED = 'a YAML mapping of namespace names to lists of repository patterns';
const rulesSchema = z.record(z.string(), z.array(z.string()));

/** A YAML file mapping each namespace to the repository patterns allowed to use it. */
export const namespaceRulesFile: Codec<NamespaceRulesFile> = {
  type: 'path',
  expected: `the path of ${RULES_EXPECTED}`,
  parse(raw, ctx) {
    const file = readableFile(raw, ctx);
    if (!file.ok) return file;
    const doc = parseDocument(readFileSync(file.value, 'utf8'));
    const [error] = doc.errors;
    if (error !== undefined) {
      return fail(`${describe(raw, file.value)} is not valid YAML: ${error.message.split('\n')[0] ?? ''}`);
    }
    // An empty file holds no rules; anything else must be the mapping.
    const checked = rulesSchema.safeParse(doc.toJS() ?? {});
    if (!checked.success) {
      const where = checked.error.issues.map((issue) => issue.path.join('.') || 'the document').join(', ');
      return fail(`${describe(raw, file.value)} does not hold ${RULES_EXPECTED} (wrong: ${where})`);
    }
    return ok({ path: file.value, rules: checked.data });
  },
  print: (value) => value.path,
};

function readableFile(raw: string, ctx: ParseContext): Parsed<string> {
  const path = resolve(ctx.cwd, raw);
  const named = describe(raw, path);
  try {
    if (!statSync(path).isFile()) return fail(`${named} is not a file; expected ${EXPECTED}`);
    accessSync(path, constants.R_OK);
    return ok(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return fail(`${named} does not exist; expected ${EXPECTED}`);
    return fail(`${named} cannot be read (${code ?? String(error)}); expected ${EXPECTED}`);
  }
}

/** `file "/abs"` or `file "rel" (/abs/rel)`. */
function describe(raw: string, path: string): string {
  return isAbsolute(raw) ? `file ${JSON.stringify(raw)}` : `file ${JSON.stringify(raw)} (${path})`;
}
