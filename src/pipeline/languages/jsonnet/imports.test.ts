import { describe, expect, it } from 'vitest';
import { ImportScanError, scanImports } from './imports.js';

const paths = (source: string): string[] => scanImports(source).map((found) => found.path);

describe('scanImports', () => {
  it('finds import, importstr and importbin with their positions', () => {
    expect(
      scanImports('local a = import "lib/a.libsonnet";\n{ b: importstr \'b.txt\', c: importbin "c" }'),
    ).toEqual([
      { keyword: 'import', path: 'lib/a.libsonnet', line: 1, column: 11 },
      { keyword: 'importstr', path: 'b.txt', line: 2, column: 6 },
      { keyword: 'importbin', path: 'c', line: 2, column: 28 },
    ]);
  });

  it('decodes escapes as Jsonnet does, so an escaped absolute path is seen as one', () => {
    expect(paths('import "\\u002fetc/passwd"')).toEqual(['/etc/passwd']);
    expect(paths("import '..\\/x'")).toEqual(['../x']);
    expect(paths('import @"a""b"')).toEqual(['a"b']);
  });

  it('ignores imports inside comments and strings', () => {
    const source = [
      '// import "a"',
      '# import "b"',
      '/* import "c" */',
      'local s = "import \'d\'";',
      'local t = \'import "e"\';',
      'local u = @"import ""f""";',
      '{ s: s, t: t, u: u }',
    ].join('\n');
    expect(paths(source)).toEqual([]);
  });

  it('reads past a text block to the imports after it', () => {
    const source = 'local a = |||\n  import "inside"\n  more\n|||;\nlocal b = import "after";\n[a, b]';
    expect(paths(source)).toEqual(['after']);
  });

  it('allows comments between the keyword and the path', () => {
    expect(paths('import /* why */ "a" + import // c\n "b"')).toEqual(['a', 'b']);
  });

  it('refuses a path that is not a plain string literal', () => {
    expect(() => scanImports('local p = "x"; import p')).toThrow(ImportScanError);
    expect(() => scanImports('import |||\n  /etc/passwd\n|||')).toThrow(/plain string literal/);
    expect(() => scanImports('import "unclosed')).toThrow(/not closed/);
  });
});
