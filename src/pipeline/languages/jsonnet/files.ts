import { repoFilePathProblem } from '../../../core/pipeline-path.js';
import { posix } from 'node:path';
import { ConfigLanguageError, type LanguageRequest } from '../types.js';
import { ImportScanError, scanImports } from './imports.js';

/** Bounds on what one program may import, so a file cannot make the server fetch a whole repository. */
export interface ImportLimits {
  readonly files: number;
  readonly bytes: number;
}

/**
 * The program and every repository file it imports, transitively, keyed by repository path.
 * As in Drone, the program's own imports resolve from the repository's root, wherever the program
 * is, and an imported file's imports from that file's folder; an absolute path or one that leaves
 * the repository is refused before anything runs.
 */
export async function gatherFiles(
  request: LanguageRequest,
  limits: ImportLimits,
): Promise<Map<string, string>> {
  // The program is written under a folder of svc's own by this path: it must stay inside it.
  const problem = repoFilePathProblem(request.path);
  if (problem !== undefined) throw new ConfigLanguageError(request.path, `the file's path ${problem}`);
  const entry = posix.normalize(request.path);
  const files = new Map([[entry, request.source]]);
  let bytes = Buffer.byteLength(request.source);
  const pending = [entry];
  for (let from = pending.pop(); from !== undefined; from = pending.pop()) {
    for (const found of importsOf(from, files.get(from) ?? '')) {
      const where = { line: found.line, column: found.column };
      const target = resolveImport(from, from === entry ? '' : posix.dirname(from), found.path, where);
      if (files.has(target)) continue;
      if (files.size >= limits.files) {
        throw new ConfigLanguageError(from, `more than ${limits.files} files imported`, where);
      }
      const text = await request.read(target);
      if (text === undefined) {
        throw new ConfigLanguageError(
          from,
          `${found.keyword} "${found.path}": no file ${target} in the repository at this commit`,
          where,
        );
      }
      bytes += Buffer.byteLength(text);
      if (bytes > limits.bytes) {
        throw new ConfigLanguageError(from, `imported files exceed ${limits.bytes} bytes`, where);
      }
      files.set(target, text);
      if (found.keyword === 'import') pending.push(target);
    }
  }
  return files;
}

function importsOf(file: string, source: string): ReturnType<typeof scanImports> {
  try {
    return scanImports(source);
  } catch (error) {
    if (!(error instanceof ImportScanError)) throw error;
    throw new ConfigLanguageError(file, error.message, { line: error.line, column: error.column });
  }
}

function resolveImport(
  from: string,
  folder: string,
  path: string,
  where: { line: number; column: number },
): string {
  const target = posix.normalize(posix.join(folder, path));
  if (
    path === '' ||
    path.includes('\0') ||
    posix.isAbsolute(path) ||
    target === '..' ||
    target.startsWith('../')
  ) {
    throw new ConfigLanguageError(
      from,
      `import "${path}": only files of the repository can be imported (a relative path inside it)`,
      where,
    );
  }
  return target;
}
