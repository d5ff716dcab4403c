import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('../../test/fixtures/reports/', import.meta.url));

/** The text of one report fixture (see test/fixtures/reports/README.md for which tool wrote it). */
export function fixture(name: string): string {
  return readFileSync(dir + name, 'utf8');
}
