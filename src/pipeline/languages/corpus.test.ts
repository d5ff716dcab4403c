/**
 * Real-world `.drone.jsonnet` and `.drone.star` files (test/fixtures/config-lang, each with its
 * source and licence in case.json) against what Drone builds from them: expected.yaml was produced
 * by independent oracles (the reference Jsonnet CLI, a native go.starlark.net program, both driven
 * as Drone drives its converters; see NOTES.md there). Documents are compared as data, since the
 * text layout differs between implementations; svc's YAML of them must read back the same too.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { documentsToYaml } from './documents.js';
import { JsonnetEvaluator } from './jsonnet/evaluator.js';
import { LANGUAGE_LIMITS } from './limits.js';
import { StarlarkEvaluator } from './starlark/evaluator.js';
import { ConfigLanguageError, type LanguageFacts } from './types.js';

const CORPUS = fileURLToPath(new URL('../../../test/fixtures/config-lang/', import.meta.url));

interface Case {
  path: string;
  source?: string;
  license?: string;
  facts?: { build?: object; repo?: object; params?: object };
  requires_pinned_starlark?: boolean;
}

const cases = (folder: string): string[] =>
  readdirSync(join(CORPUS, folder), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();

function factsOf(spec: Case): LanguageFacts {
  const shared = JSON.parse(readFileSync(join(CORPUS, 'facts.json'), 'utf8')) as LanguageFacts;
  return {
    build: { ...shared.build, ...spec.facts?.build },
    repo: { ...shared.repo, ...spec.facts?.repo, config: spec.path },
    params: { ...shared.params, ...spec.facts?.params },
  };
}

function requestOf(dir: string, spec: Case) {
  return {
    path: spec.path,
    source: readFileSync(join(dir, spec.path), 'utf8'),
    facts: factsOf(spec),
    read: (file: string) => {
      const target = resolve(dir, file);
      if (!target.startsWith(dir + sep) || !existsSync(target)) return Promise.resolve(undefined);
      return Promise.resolve(readFileSync(target, 'utf8'));
    },
  };
}

/** Drone's text (`---` then one JSON document each) as data. */
function expectedDocuments(dir: string): unknown[] {
  return parseAllDocuments(readFileSync(join(dir, 'expected.yaml'), 'utf8')).map(
    (doc) => doc.toJS() as unknown,
  );
}

const starlark = new StarlarkEvaluator(LANGUAGE_LIMITS.starlark);
afterAll(() => starlark.close());
const jsonnet = new JsonnetEvaluator(LANGUAGE_LIMITS.jsonnet);
const evaluators = { jsonnet, starlark };

for (const language of ['jsonnet', 'starlark'] as const) {
  describe.runIf(language === 'starlark' || JsonnetEvaluator.available())(`${language} corpus`, () => {
    const names = cases(language);
    it('holds at least 10 real-world files, each with its source and licence', () => {
      const real = names
        .map((name) => JSON.parse(readFileSync(join(CORPUS, language, name, 'case.json'), 'utf8')) as Case)
        .filter((spec) => spec.source !== undefined && spec.source.includes('/'));
      expect(real.length).toBeGreaterThanOrEqual(10);
      for (const spec of real) expect(spec.license).toMatch(/\S/);
    });

    for (const name of names) {
      const dir = join(CORPUS, language, name);
      const spec = JSON.parse(readFileSync(join(dir, 'case.json'), 'utf8')) as Case;
      // Debian's go.starlark.net (2021) predates str.removeprefix, which Drone's (2022) has.
      const why =
        spec.requires_pinned_starlark === true ? ' (skipped: needs go.starlark.net newer than Debian’s)' : '';
      it.skipIf(why !== '')(`${name}: ${spec.source ?? 'synthetic'}${why}`, async () => {
        const documents = await evaluators[language].evaluate(requestOf(dir, spec));
        expect(documents).toEqual(expectedDocuments(dir));
        const yaml = parseAllDocuments(documentsToYaml(documents), { version: '1.1' });
        expect(yaml.map((doc) => doc.toJS() as unknown)).toEqual(documents);
      });
    }

    for (const name of cases(`${language}-errors`)) {
      const dir = join(CORPUS, `${language}-errors`, name);
      const spec = JSON.parse(readFileSync(join(dir, 'case.json'), 'utf8')) as Case;
      const expected = JSON.parse(readFileSync(join(dir, 'expected-error.json'), 'utf8')) as {
        line: number;
        column: number;
        contains: string;
      };
      it(`${name}: fails at ${expected.line}:${expected.column} (${expected.contains})`, async () => {
        const error = await evaluators[language].evaluate(requestOf(dir, spec)).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(ConfigLanguageError);
        const failure = error as ConfigLanguageError;
        expect([failure.file, failure.line, failure.column]).toEqual([
          spec.path,
          expected.line,
          expected.column,
        ]);
        expect(failure.message.toLowerCase()).toContain(expected.contains.toLowerCase());
      });
    }
  });
}
