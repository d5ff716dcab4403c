import { posix } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as tar from 'tar-stream';
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
  const pack = tar.pack();
  const out = new PassThrough();
  const seen = new Set<string>();
  const prefixes = [...new Set(globs.map(staticPrefix))].filter(
    (prefix, _i, all) =>
      !all.some((other) => other !== prefix && (other === '' || prefix.startsWith(`${other}/`))),
  );
  void (async () => {
    for (const prefix of prefixes) {
      const archive = await files.get(
        prefix === '' ? workspacePath : posix.join(workspacePath, prefix),
        signal,
      );
      if (archive === undefined) continue;
      // Entries are named from the prefix's last segment (or the workspace folder's, for '').
      const parent = prefix === '' ? '' : posix.dirname(prefix) === '.' ? '' : posix.dirname(prefix);
      const extract = tar.extract();
      const feeding = pipeline(archive, extract);
      feeding.catch(() => undefined);
      for await (const entry of extract) {
        const raw = entry.header.name.replace(/\/+$/, '');
        const name = prefix === '' ? raw.split('/').slice(1).join('/') : posix.join(parent, raw);
        const kind = entry.header.type;
        const keep = kind === 'file' || kind === 'symlink' || kind === 'link';
        if (name === '' || seen.has(name) || !keep || !selected(name, globs)) {
          entry.resume();
          continue;
        }
        seen.add(name);
        found(name);
        // A hard link names another entry of the same tar: renamed the same way.
        const linked = entry.header.linkname ?? '';
        const linkname =
          kind !== 'link'
            ? entry.header.linkname
            : prefix === ''
              ? linked.split('/').slice(1).join('/')
              : posix.join(parent, linked);
        await new Promise<void>((resolve, reject) => {
          const sink = pack.entry({ ...entry.header, name, linkname }, (error) =>
            error ? reject(error) : resolve(),
          );
          if (kind === 'file') pipeline(entry, sink).catch(reject);
          else entry.resume();
        });
      }
      await feeding;
    }
    pack.finalize();
  })().catch((error: unknown) => out.destroy(error as Error));
  pipeline(pack, out).catch((error: unknown) => out.destroy(error as Error));
  return out;
}
