import { readFileSync } from 'node:fs';

/** svc's version, read from the package manifest (works from src/ under tsx and from dist/). */
export function readVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version?: unknown;
  };
  return typeof manifest.version === 'string' ? manifest.version : '0.0.0';
}
