import { posix } from 'node:path';

/** Where one of a step's cache paths is in an archive, and in the step's filesystem. */
export interface CachePlace {
  /** As the pipeline wrote it. */
  written: string;
  /** The archive's name for it: `w/<path in the workspace>` or `a/<absolute path without />`. */
  inArchive: string;
  /** Absolute, in the step's filesystem. */
  absolute: string;
}

/**
 * Where a step's cache paths are: relative ones under the workspace path, absolute ones as they
 * are. The archive names them apart (`w/…`, `a/…`) so that a cache saved where the workspace is
 * `/drone/src` restores where it is another folder (an SSH host's, a Kubernetes pod's).
 * Throws for a path that leaves its root (`..`), which the pipeline's lint refuses already.
 */
export function cachePlaces(paths: readonly string[], workspacePath: string): CachePlace[] {
  return paths.map((written) => {
    const absolute = written.startsWith('/');
    const clean = posix.normalize(written).replace(/\/+$/, '');
    if (clean.split('/').includes('..') || clean === '.' || clean === '' || clean === '/')
      throw new Error(
        `cache path "${written}": expected a folder or file inside the workspace or an absolute one, without ..`,
      );
    return absolute
      ? { written, inArchive: `a${clean}`, absolute: clean }
      : { written, inArchive: `w/${clean.replace(/^\.\//, '')}`, absolute: posix.join(workspacePath, clean) };
  });
}
