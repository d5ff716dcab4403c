import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compilePipeline } from './compile/compile.js';
import { testInput } from '../../test/fixtures/pipelines/compile-input.js';
import { diagnosticText } from './diagnostics.js';
import { lintText } from './lint/lint.js';
import type { Pipeline, SecretDocument } from './types.js';

const CORPUS = fileURLToPath(new URL('../../test/fixtures/pipelines', import.meta.url));
const EXPECT = /^# expect: (error|warning) (\d+):(\d+) (.+)$/;

interface Expected {
  severity: string;
  line: number;
  column: number;
  fragment: string;
}

function load(folder: string, file: string) {
  const text = readFileSync(join(CORPUS, folder, file), 'utf8');
  const lines = text.split('\n');
  const expected: Expected[] = lines.flatMap((line) => {
    const match = EXPECT.exec(line);
    if (match === null) return [];
    const [, severity = '', row = '', column = '', fragment = ''] = match;
    return [{ severity, line: Number(row), column: Number(column), fragment }];
  });
  return { text, expected, trusted: lines.includes('# lint: trusted') };
}

function files(folder: string): string[] {
  return readdirSync(join(CORPUS, folder)).filter((file) => file.endsWith('.yml'));
}

/** The diagnostics as comparable lines, e.g. `error 12:5 steps[0].image: is required…`. */
function found(text: string, trusted: boolean): string[] {
  return lintText(text, { trusted }).diagnostics.map(
    (d) => `${d.severity} ${d.line}:${d.column} ${diagnosticText(d)}`,
  );
}

function compare(actual: string[], expected: Expected[]): void {
  const remaining = [...actual];
  const missing: string[] = [];
  for (const want of expected) {
    const prefix = `${want.severity} ${want.line}:${want.column} `;
    const index = remaining.findIndex((line) => line.startsWith(prefix) && line.includes(want.fragment));
    if (index === -1) missing.push(`${prefix}… ${want.fragment}`);
    else remaining.splice(index, 1);
  }
  expect({ missing, unexpected: remaining }).toEqual({ missing: [], unexpected: [] });
}

describe('the pipeline corpus', () => {
  it('has valid and invalid files', () => {
    expect(files('valid').length).toBeGreaterThanOrEqual(10);
    expect(files('invalid').length).toBeGreaterThanOrEqual(10);
  });

  describe.each(files('valid'))('valid/%s', (file) => {
    const { text, expected, trusted } = load('valid', file);

    it('lints without errors, with exactly the expected warnings', () => {
      expect(expected.every((want) => want.severity === 'warning')).toBe(true);
      compare(found(text, trusted), expected);
      expect(lintText(text, { trusted }).valid).toBe(true);
    });

    it('compiles every pipeline', async () => {
      const { manifest } = lintText(text, { trusted });
      const secrets = manifest.documents.filter((d): d is SecretDocument => d.kind === 'secret');
      for (const pipeline of manifest.documents.filter((d): d is Pipeline => d.kind === 'pipeline')) {
        const result = await compilePipeline({ ...testInput(pipeline), secretDocuments: secrets, trusted });
        expect(result.ok ? [] : result.errors).toEqual([]);
        if (result.ok) expect(result.spec.steps.map((step) => step.name)).toContain(pipeline.steps[0]?.name);
      }
    });
  });

  describe.each(files('invalid'))('invalid/%s', (file) => {
    const { text, expected, trusted } = load('invalid', file);

    it('reports exactly the expected errors and warnings', () => {
      expect(expected.some((want) => want.severity === 'error')).toBe(true);
      compare(found(text, trusted), expected);
      expect(lintText(text, { trusted }).valid).toBe(false);
    });
  });
});
