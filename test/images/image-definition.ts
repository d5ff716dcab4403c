/*
 * svc/svc's definition as images/svc/ holds it, and the Dockerfile read as its instructions: what
 * test/images checks the two builds (scripts/images.sh and `docker build`) against.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A file's lines without comments and blank lines. */
export function definitionLines(file: string): string[] {
  return readFileSync(join(ROOT, file), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

/** One instruction of a Dockerfile: its keyword (upper case) and the rest of the line. */
export interface Instruction {
  readonly keyword: string;
  readonly args: string;
}

/** The Dockerfile's stages, each a list of instructions (continuation lines joined). */
export function dockerfileStages(text: string): Instruction[][] {
  const stages: Instruction[][] = [];
  const joined = text.replace(/\\\n/g, ' ');
  for (const raw of joined.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const space = line.search(/\s/);
    const keyword = (space < 0 ? line : line.slice(0, space)).toUpperCase();
    const args = space < 0 ? '' : line.slice(space + 1).trim();
    if (keyword === 'FROM') stages.push([]);
    stages.at(-1)?.push({ keyword, args: args.replace(/\s+/g, ' ') });
  }
  return stages;
}

/** What a `COPY` of the build stage brings in from the build context: its source paths. */
export function copiedSources(stage: readonly Instruction[]): string[] {
  return stage
    .filter((i) => i.keyword === 'COPY' && !i.args.startsWith('--from'))
    .flatMap((i) => i.args.split(' ').slice(0, -1))
    .map((source) => source.replace(/^\.\//, '').replace(/\/$/, ''));
}

/**
 * What in the build context makes an image path: dist/ is compiled from src/ (and the bundle from
 * it), web/dist is built from web/; anything else is copied as it is.
 */
export function sourceOf(path: string): string {
  if (path.startsWith('dist/')) return 'src';
  if (path.startsWith('web/dist')) return 'web';
  return path;
}
