import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SPEC_SETTINGS } from '../../test/fixtures/spec-settings.js';

const SRC = fileURLToPath(new URL('..', import.meta.url));

function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !/\.(test|case)\.ts$/.test(entry.name) ? [path] : [];
  });
}

/** What a "we parse it but do not act on it" message or list looks like. */
const NOT_HONOURED =
  /not (?:supported|honou?red)(?: by svc\b[^'"`]*)? yet|has no effect yet|NOT_YET\b|not honou?red/i;

describe('every setting of the spec is honoured', () => {
  it('has no "not supported yet" list or message left in svc', () => {
    const offending = sources(SRC).flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, index) =>
          NOT_HONOURED.test(line) ? [`${relative(SRC, file)}:${index + 1}: ${line.trim()}`] : [],
        ),
    );
    expect(offending).toEqual([]);
  });

  it('names no spec setting next to such a message anywhere in the sources', () => {
    const names = new Set(SPEC_SETTINGS.map((setting) => setting.name));
    const text = sources(SRC)
      .map((file) => readFileSync(file, 'utf8'))
      .join('\n');
    const hits = [
      ...text.matchAll(/(SVC_[A-Z0-9_]+)[^\n]{0,80}(?:not supported|no effect|ignored)[^\n]{0,40}yet/g),
    ]
      .map((match) => match[1] ?? '')
      .filter((name) => names.has(name));
    expect(hits).toEqual([]);
  });
});
