import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readEnvFile } from './env-file.js';

function file(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'svc-env-')), 'runner.env');
  writeFileSync(path, text);
  return path;
}

describe('readEnvFile', () => {
  it('reads NAME=value lines, skipping comments and blanks, dropping export and quotes', () => {
    const path = file(
      '# proxies\nHTTP_PROXY=http://proxy:3128\n\nexport NO_PROXY="localhost,127.0.0.1"\nEMPTY=\nEQ=a=b\nQ=\'x y\'\n',
    );
    expect(readEnvFile(path)).toEqual({
      HTTP_PROXY: 'http://proxy:3128',
      NO_PROXY: 'localhost,127.0.0.1',
      EMPTY: '',
      EQ: 'a=b',
      Q: 'x y',
    });
  });

  it('names the line that is not NAME=value', () => {
    const path = file('A=1\nthis is not a variable\n');
    expect(() => readEnvFile(path)).toThrow(/line 2: expected NAME=value/);
  });
});
