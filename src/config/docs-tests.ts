import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SCHEMA } from './schema/index.js';

/**
 * Where each setting is named in the repository's tests, for the "Tested" line of docs/settings.md.
 * The doc is generated from this scan, so adding or changing a test that names a setting makes
 * docs/settings.md stale (src/config/docs.test.ts fails) until `npm run docs:settings` runs again.
 */
export interface SettingTests {
  /** Test files outside the settings suite that name the setting: they exercise what it does. */
  readonly behaviour: readonly string[];
  /** Settings-suite files that parse and validate it: those naming it, and the spec-driven ones. */
  readonly parsing: readonly string[];
}

export type TestIndex = ReadonlyMap<string, SettingTests>;

export interface TestFile {
  /** Relative to the repository root, with `/` separators. */
  readonly path: string;
  readonly text: string;
}

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

const TEST_DIRS = ['src', 'test'];
const TEST_FILE = /\.(?:test|case)\.ts$/;

/** The docs tests name settings to check the doc, which tests nothing about the settings themselves. */
const DOCS_TESTS = /^src\/config\/docs[^/]*\.test\.ts$/;

/**
 * The settings suite only loads, checks and prints settings: src/config, and `svc config print`,
 * which is that and nothing more. A setting named there is parsed, not put to use.
 */
const SETTINGS_SUITE = /^src\/config\/|^src\/cli\/config-print\.test\.ts$/;

/**
 * A suite that iterates the tables of test/fixtures/spec-settings.ts (not just its REQUIRED_ENV) parses
 * every setting of the spec with a valid and an invalid value, without naming it.
 */
const SPEC_TABLES = /\b(?:SPEC_SETTINGS|SERVER_SPEC|RUNNER_SPEC|ADDITIONS_SPEC)\b/;

/** Reads every `*.test.ts` and `*.case.ts` under src/ and test/ of `root`, skipping node_modules. */
export function readTestFiles(root: string = REPO_ROOT): TestFile[] {
  const files: TestFile[] = [];
  const walk = (relative: string): void => {
    for (const entry of readdirSync(join(root, relative), { withFileTypes: true })) {
      const path = `${relative}/${entry.name}`;
      if (entry.isDirectory() && entry.name !== 'node_modules') walk(path);
      else if (entry.isFile() && TEST_FILE.test(entry.name)) {
        files.push({ path, text: readFileSync(join(root, path), 'utf8') });
      }
    }
  };
  for (const dir of TEST_DIRS) walk(dir);
  return files;
}

/**
 * Indexes `files` by the setting names they contain as whole words (`SVC_RUNNER_NAME` is not found in
 * `SVC_RUNNER_NAMES`). `specNames` are the settings the spec-driven suites parse without naming them.
 * Paths are sorted by code unit, so the doc does not depend on the directory order or the locale.
 */
export function indexTests(
  files: readonly TestFile[],
  names: readonly string[],
  specNames: ReadonlySet<string>,
): TestIndex {
  const behaviour = new Map<string, Set<string>>(names.map((name) => [name, new Set()]));
  const parsing = new Map<string, Set<string>>(names.map((name) => [name, new Set()]));
  // One pass per file for all names; `\b` on both sides makes the match whole-word whatever the order.
  const pattern = new RegExp(`\\b(?:${names.map(escapeRegExp).join('|')})\\b`, 'g');
  for (const file of files) {
    if (DOCS_TESTS.test(file.path)) continue;
    const suite = SETTINGS_SUITE.test(file.path);
    const target = suite ? parsing : behaviour;
    for (const [name] of file.text.matchAll(pattern)) target.get(name)?.add(file.path);
    if (suite && SPEC_TABLES.test(file.text)) {
      for (const name of names) if (specNames.has(name)) parsing.get(name)?.add(file.path);
    }
  }
  return new Map(
    names.map((name) => [
      name,
      { behaviour: sorted(behaviour.get(name)), parsing: sorted(parsing.get(name)) },
    ]),
  );
}

/**
 * Reads and indexes the repository's tests for every setting of the schema: what the doc generator and
 * the doc check both use. The spec's names come from the caller, as src/ does not import test/.
 */
export function scanTests(specNames: Iterable<string>, root?: string): TestIndex {
  const names = [...new Set(SCHEMA.map((def) => def.name))];
  return indexTests(readTestFiles(root), names, new Set(specNames));
}

function sorted(paths: ReadonlySet<string> | undefined): string[] {
  return [...(paths ?? [])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
