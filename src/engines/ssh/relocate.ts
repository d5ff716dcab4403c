import type { Readable } from 'node:stream';
import type { TarEntry } from '../../platform/tar/header.js';
import { retar } from '../retar.js';

/**
 * A step's paths as they lie on a host: the workspace in the stage's folder, everything else where
 * it is (see SshEngine). Both directions leave other paths unchanged.
 */
export interface HostPaths {
  /** An absolute path of the step's filesystem (`/drone/src/x`) where it is on the host. */
  readonly toHost: (path: string) => string;
  /** An absolute path on the host as the step names it: the stage's folder taken off again. */
  readonly fromHost: (path: string) => string;
}

/**
 * A tar for `tar -x -C /` on the host: entry names (paths from `/` without the slash), the targets
 * of hard links (named the same way) and absolute symbolic link targets moved to the host's paths.
 */
export function tarToHost(archive: Readable, paths: HostPaths): Readable {
  const move = (name: string) => {
    const directory = name.endsWith('/');
    const moved = paths.toHost(`/${name.replace(/\/+$/, '')}`).slice(1);
    return directory ? `${moved}/` : moved;
  };
  return retar(archive, (header) => ({
    ...header,
    name: move(header.name),
    linkname: relink(header, move, paths.toHost),
  }));
}

/**
 * A tar made on the host, as the step would have made it: absolute symbolic link targets in the
 * stage's folder named as the step sees them. (Entry names are relative to the path's parent already.)
 */
export function tarFromHost(archive: Readable, paths: HostPaths): Readable {
  return retar(archive, (header) => ({
    ...header,
    linkname: relink(header, (name) => name, paths.fromHost),
  }));
}

function relink(
  header: TarEntry,
  hardLink: (name: string) => string,
  symlink: (path: string) => string,
): string | null {
  const to = header.linkname;
  if (to === null || to === '') return to;
  if (header.type === 'link') return hardLink(to);
  if (header.type === 'symlink' && to.startsWith('/')) return symlink(to);
  return to;
}
