import { posix } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { sweptAsItFlows } from '../../platform/dead-buffers.js';
import { zstdDecompressor } from '../../platform/zstd.js';
import type { TarEntry } from '../../platform/tar/header.js';
import { archiveStream, rewriteTar } from '../../platform/tar/rewrite.js';
import type { CachePlace } from './paths.js';

/** Permission bits kept from an archive: setuid and setgid are dropped (a cache is data, not privilege). */
const KEPT_MODE = 0o1777;

/**
 * The tar inside a zstd stream, failing with the source's error (a connection dropped midway), which
 * `.pipe` would not pass on — a restore would wait forever for the rest.
 */
export function decompressed(compressed: Readable): Readable {
  const out = zstdDecompressor();
  pipeline(sweptAsItFlows(compressed), out).catch((error: unknown) => out.destroy(error as Error));
  return out;
}

/** A cache archive refused on restore: an entry would land outside the step's cache paths. */
export class UnsafeArchiveError extends Error {
  constructor(entry: string, why: string) {
    super(`the cache archive's entry "${entry.slice(0, 200)}" ${why}: the archive is refused`);
    this.name = 'UnsafeArchiveError';
  }
}

/** One of the step's paths as the engine answered it: a tar whose entries start with the path's last segment. */
export interface SavedPath {
  place: CachePlace;
  tar: Readable;
}

/**
 * The cache archive of a step's paths: one tar (uncompressed; the caller compresses it) whose
 * entries are named `w/<workspace path>/…` or `a/<absolute path>/…` (paths.ts). `parts` are
 * read one after the other, each a tar as `docker cp` makes it (first segment = the path's last).
 */
export function packCache(parts: AsyncIterable<SavedPath>): Readable {
  async function* archives(): AsyncGenerator<AsyncGenerator<Buffer>> {
    for await (const part of parts)
      yield rewriteTar(part.tar, (header) => {
        const rest = stripFirst(header.name);
        const name = rest === '' ? part.place.inArchive : `${part.place.inArchive}/${rest}`;
        const linkname =
          header.type === 'link' && header.linkname != null
            ? `${part.place.inArchive}/${stripFirst(header.linkname)}`.replace(/\/$/, '')
            : header.linkname;
        return { ...header, name, linkname };
      });
  }
  return archiveStream(archives());
}

/**
 * A cache archive made ready for the step: each entry renamed from its archive name to its place
 * in the step's filesystem, relative to `/` (engines extract it at `/`) — and refused, failing the
 * stream with UnsafeArchiveError, when it would land outside every one of `places`: a name with
 * `..`, an absolute one, or one under none of the places; a symbolic link pointing out of its
 * place, or with `..` after a name; a hard link to outside or through a symbolic link of the
 * archive; a device, FIFO or other special file; an entry under a symbolic link the archive made
 * earlier. Entries of places the step no longer names are left out.
 */
export function restoreCache(archive: Readable, places: readonly CachePlace[]): Readable {
  const links = new Set<string>();
  const check = (header: TarEntry): TarEntry | undefined => {
    const name = header.name.replace(/\/+$/, '');
    const place = placeOf(name, places, header.name);
    if (place === undefined) return undefined;
    const target = toTarget(name, place);
    for (const link of links)
      if (target.startsWith(`${link}/`))
        throw new UnsafeArchiveError(header.name, 'lies under a symbolic link of the archive');
    const renamed: TarEntry = {
      ...header,
      name: target.slice(1),
      mode: (header.mode ?? 0o644) & KEPT_MODE,
    };
    switch (header.type) {
      case 'file':
      case 'directory':
        break;
      case 'block-device':
      case 'character-device':
      case 'contiguous-file':
      case 'fifo':
      case null:
        throw new UnsafeArchiveError(
          header.name,
          `is a ${header.type ?? `special file (type flag ${JSON.stringify(header.flag)})`}, which a cache never holds`,
        );
      case 'symlink': {
        const to = header.linkname ?? '';
        // `..` only before the names (../pkg/bin): after one (b/../..), the name may be a link of the
        // archive (b -> .), and what the path lexically says is not where it leads.
        const segments = to.split('/');
        const firstName = segments.findIndex((segment) => segment !== '..');
        if (firstName >= 0 && segments.slice(firstName).includes('..'))
          throw new UnsafeArchiveError(header.name, 'is a symbolic link with .. after a name');
        const resolved = to.startsWith('/') ? posix.normalize(to) : posix.join(posix.dirname(target), to);
        if (!inside(resolved, place.absolute))
          throw new UnsafeArchiveError(header.name, `points out of ${place.written}`);
        links.add(target);
        break;
      }
      case 'link': {
        const to = (header.linkname ?? '').replace(/\/+$/, '');
        const linkPlace = placeOf(to, places, header.name);
        if (linkPlace === undefined)
          throw new UnsafeArchiveError(header.name, 'links to a file outside the cache');
        const linked = toTarget(to, linkPlace);
        for (const link of links)
          if (linked === link || linked.startsWith(`${link}/`))
            throw new UnsafeArchiveError(
              header.name,
              'links to a file through a symbolic link of the archive',
            );
        renamed.linkname = linked.slice(1);
        break;
      }
      default:
        throw new UnsafeArchiveError(
          header.name,
          // What the typings do not know still comes here, rather than through.
          `is a ${String(header.type)}, which a cache never holds`,
        );
    }
    return renamed;
  };
  return archiveStream([rewriteTar(archive, check)]);
}

/** The place an archive name is under; undefined for a place the step does not name; throws for unsafe names. */
function placeOf(name: string, places: readonly CachePlace[], shown: string): CachePlace | undefined {
  if (name === '' || name.startsWith('/') || name.includes('\0'))
    throw new UnsafeArchiveError(shown, 'is not a relative name');
  const segments = name.split('/');
  if (segments.some((segment) => segment === '..' || segment === '.' || segment === ''))
    throw new UnsafeArchiveError(shown, 'has a . or .. segment');
  if (segments[0] !== 'w' && segments[0] !== 'a')
    throw new UnsafeArchiveError(shown, 'is not under w/ or a/');
  return places.find((place) => name === place.inArchive || name.startsWith(`${place.inArchive}/`));
}

function toTarget(name: string, place: CachePlace): string {
  return place.absolute + name.slice(place.inArchive.length);
}

function inside(path: string, root: string): boolean {
  return path === root || path.startsWith(`${root}/`);
}

function stripFirst(name: string): string {
  return name.replace(/^\/+/, '').split('/').slice(1).join('/').replace(/\/+$/, '');
}
