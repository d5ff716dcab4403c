import { posix } from 'node:path';
import type { Readable } from 'node:stream';
import { archiveStream, rewriteTar } from '../../platform/tar/rewrite.js';
import type { StepFiles } from '../../core/engine.js';

const GLOB_CHARS = /[*?[{]/;

/** The folder a glob's matches are all under: its segments before the first with a glob character. */
export function staticPrefix(glob: string): string {
  const segments = glob.split('/');
  const fixed: string[] = [];
  for (const segment of segments) {
    if (GLOB_CHARS.test(segment)) break;
    fixed.push(segment);
  }
  return fixed.join('/');
}

/** Whether the workspace path `path` is one `globs` select: a match, or under a literal path that is a folder. */
export function selected(path: string, globs: readonly string[]): boolean {
  return globs.some((glob) =>
    GLOB_CHARS.test(glob) ? posix.matchesGlob(path, glob) : path === glob || path.startsWith(`${glob}/`),
  );
}

/**
 * The workspace's files that `globs` (relative to the workspace) select, as one tar whose entries
 * are named by their path in the workspace — files, symbolic and hard links; folders are implied. Each
 * glob's fixed folder is read once from the step (`StepFiles.get`) and filtered while it streams;
 * a file two globs select is in the tar once. `found` hears each path put in.
 */
export function selectFiles(
  files: StepFiles,
  workspacePath: string,
  globs: readonly string[],
  found: (path: string) => void,
  signal?: AbortSignal,
): Readable {
  const seen = new Set<string>();
  const prefixes = [...new Set(globs.map(staticPrefix))].filter(
    (prefix, _i, all) =>
      !all.some((other) => other !== prefix && (other === '' || prefix.startsWith(`${other}/`))),
  );
  async function* archives(): AsyncGenerator<AsyncGenerator<Buffer>> {
    for (const prefix of prefixes) {
      const archive = await files.get(
        prefix === '' ? workspacePath : posix.join(workspacePath, prefix),
        signal,
      );
      if (archive === undefined) continue;
      // Entries are named from the prefix's last segment (or the workspace folder's, for '').
      const parent = prefix === '' ? '' : posix.dirname(prefix) === '.' ? '' : posix.dirname(prefix);
      const inWorkspace = (raw: string) =>
        prefix === '' ? raw.split('/').slice(1).join('/') : posix.join(parent, raw);
      yield rewriteTar(archive, (header) => {
        const name = inWorkspace(header.name.replace(/\/+$/, ''));
        const kind = header.type;
        const keep = kind === 'file' || kind === 'symlink' || kind === 'link';
        if (name === '' || seen.has(name) || !keep || !selected(name, globs)) return undefined;
        seen.add(name);
        found(name);
        // A hard link names another entry of the same tar: renamed the same way.
        const linkname =
          kind === 'link' && header.linkname !== null ? inWorkspace(header.linkname) : header.linkname;
        return { ...header, name, linkname };
      });
    }
  }
  return archiveStream(archives());
}
