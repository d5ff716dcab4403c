import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { indexTests, readTestFiles } from './docs-tests.js';

const NAMES = ['SVC_RUNNER_NAME', 'SVC_RUNNER_NAMES', 'SVC_DEBUG'];
const NO_SPEC = new Set<string>();

describe('indexTests', () => {
  it('finds names as whole words only', () => {
    const index = indexTests(
      [
        { path: 'test/e2e/names.test.ts', text: "env: { SVC_RUNNER_NAMES: 'a,b' }" },
        { path: 'test/e2e/prefix.test.ts', text: 'XSVC_RUNNER_NAME and SVC_RUNNER_NAME_2 and SVC_DEBUGGER' },
        {
          path: 'test/e2e/name.test.ts',
          text: "env['SVC_RUNNER_NAME'] = 'x'; // then SVC_RUNNER_NAME again",
        },
      ],
      NAMES,
      NO_SPEC,
    );
    expect(index.get('SVC_RUNNER_NAME')?.behaviour).toEqual(['test/e2e/name.test.ts']);
    expect(index.get('SVC_RUNNER_NAMES')?.behaviour).toEqual(['test/e2e/names.test.ts']);
    expect(index.get('SVC_DEBUG')).toEqual({ behaviour: [], parsing: [] });
  });

  it('sorts paths whatever the order the files came in', () => {
    const files = ['test/z.test.ts', 'src/b/a.case.ts', 'src/a.test.ts', 'src/B.test.ts'].map((path) => ({
      path,
      text: 'SVC_DEBUG',
    }));
    expect(indexTests(files, NAMES, NO_SPEC).get('SVC_DEBUG')?.behaviour).toEqual([
      'src/B.test.ts',
      'src/a.test.ts',
      'src/b/a.case.ts',
      'test/z.test.ts',
    ]);
  });

  it('keeps the settings suite apart from behaviour and ignores the docs tests', () => {
    const index = indexTests(
      [
        { path: 'src/runner/name.test.ts', text: 'SVC_RUNNER_NAME' },
        { path: 'src/config/load.test.ts', text: 'SVC_RUNNER_NAME' },
        { path: 'src/config/values/scalars.test.ts', text: 'SVC_RUNNER_NAME' },
        { path: 'src/cli/config-print.test.ts', text: 'SVC_RUNNER_NAME' },
        { path: 'src/cli/server/provider.test.ts', text: 'import { REQUIRED_ENV }; SVC_RUNNER_NAME' },
        { path: 'src/config/docs.test.ts', text: 'SVC_RUNNER_NAME' },
        { path: 'src/config/docs-tests.test.ts', text: 'SVC_RUNNER_NAME' },
      ],
      NAMES,
      NO_SPEC,
    );
    expect(index.get('SVC_RUNNER_NAME')).toEqual({
      behaviour: ['src/cli/server/provider.test.ts', 'src/runner/name.test.ts'],
      parsing: [
        'src/cli/config-print.test.ts',
        'src/config/load.test.ts',
        'src/config/values/scalars.test.ts',
      ],
    });
  });

  it('credits a suite iterating the spec tables with every spec setting, and only those', () => {
    const schemaTest = { path: 'src/config/schema.test.ts', text: 'for (const spec of SPEC_SETTINGS) {}' };
    const index = indexTests([schemaTest], NAMES, new Set(['SVC_DEBUG']));
    expect(index.get('SVC_DEBUG')?.parsing).toEqual(['src/config/schema.test.ts']);
    expect(index.get('SVC_RUNNER_NAME')?.parsing).toEqual([]);
  });
});

describe('readTestFiles', () => {
  const root = mkdtempSync(join(tmpdir(), 'svc-docs-tests-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const put = (path: string): void => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), `// ${path}`);
  };

  it('reads test and case files under src/ and test/, outside node_modules', () => {
    for (const path of [
      'src/a/x.test.ts',
      'src/a/y.case.ts',
      'test/e2e/z.test.ts',
      'src/a/x.ts',
      'src/a/x.test.js',
      'src/node_modules/dep/d.test.ts',
      'test/fixtures/node_modules/e.test.ts',
      'bench/b.test.ts',
    ]) {
      put(path);
    }
    const files = readTestFiles(root);
    expect(files.map((file) => file.path).sort()).toEqual([
      'src/a/x.test.ts',
      'src/a/y.case.ts',
      'test/e2e/z.test.ts',
    ]);
    expect(files.find((file) => file.path === 'test/e2e/z.test.ts')?.text).toBe('// test/e2e/z.test.ts');
  });
});
