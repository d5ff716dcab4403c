import { posix } from 'node:path';
import type * as tar from 'tar-stream';
import { UnsafeEntryError } from './errors.js';

/** A tar entry as the zip will hold it. */
export type ZipEntrySpec =
  | { kind: 'file'; name: string; mode: number; mtime: Date; size: number }
  | { kind: 'directory'; name: string; mode: number; mtime: Date }
  | { kind: 'symlink'; name: string; mode: number; mtime: Date; target: string };

/**
 * Checks tar entries in order and says what each becomes in the zip, or undefined for one left out
 * (the root folder `./`, a folder named again). Throws UnsafeEntryError for an entry that an
 * extractor could write outside its folder with — an absolute name, a `..` segment (with `/` or
 * `\` as separator, for Windows extractors), a name at or under a symbolic link made earlier in
 * the archive — and for devices, FIFOs, names or link targets over `maxNameBytes`.
 */
export class TarEntryChecker {
  readonly #maxNameBytes: number;
  readonly #directories = new Set<string>();
  readonly #symlinks = new Set<string>();

  constructor(maxNameBytes: number) {
    this.#maxNameBytes = maxNameBytes;
  }

  check(header: tar.Header): ZipEntrySpec | undefined {
    const name = this.#name(header.name);
    if (name === undefined) return undefined;
    this.#refuseUnderSymlink(header.name, name);
    const mtime = header.mtime;
    // Set-user-ID, set-group-ID and sticky bits are dropped: an artifact is data, not privilege.
    const mode = header.mode & 0o777;
    switch (header.type) {
      case 'file':
      case 'contiguous-file':
        return { kind: 'file', name, mode, mtime, size: header.size };
      case 'directory':
        if (this.#directories.has(name)) return undefined;
        this.#directories.add(name);
        return { kind: 'directory', name, mode, mtime };
      case 'symlink':
        this.#symlinks.add(name);
        return { kind: 'symlink', name, mode: 0o777, mtime, target: this.#target(header) };
      case 'link': {
        // A zip has no hard links, and the data went by with the first name: the second name
        // becomes a symbolic link to the first, relative so that it holds wherever it is extracted.
        const linked = this.#name(this.#target(header));
        if (linked === undefined)
          throw new UnsafeEntryError(header.name, 'is a hard link to the root folder');
        const target = posix.relative(posix.dirname(name), linked);
        this.#symlinks.add(name);
        return { kind: 'symlink', name, mode: 0o777, mtime, target };
      }
      case 'character-device':
      case 'block-device':
      case 'fifo':
        throw new UnsafeEntryError(header.name, `is a ${header.type}, which an archive of files never holds`);
      default:
        // tar-stream answers null for a type it does not know: it comes here, rather than through.
        throw new UnsafeEntryError(header.name, `is a ${String(header.type)} entry, which is not a file`);
    }
  }

  /** The zip name: leading `./` and trailing `/` removed; undefined for the root folder itself. */
  #name(tarName: string): string | undefined {
    let name = tarName;
    while (name.startsWith('./')) name = name.slice(2);
    name = name.replace(/\/+$/, '');
    if (name === '' || name === '.') {
      if (tarName === '') throw new UnsafeEntryError(tarName, 'has no name');
      return undefined;
    }
    if (name.startsWith('/') || name.startsWith('\\') || /^[A-Za-z]:/.test(name))
      throw new UnsafeEntryError(tarName, 'has an absolute name');
    if (name.split(/[/\\]/).includes('..')) throw new UnsafeEntryError(tarName, 'has a .. segment');
    if (name.split('/').some((segment) => segment === '' || segment === '.'))
      throw new UnsafeEntryError(tarName, 'has an empty or . segment');
    this.#refuseBadText(tarName, name, 'name');
    return name;
  }

  #target(header: tar.Header): string {
    const target = header.linkname ?? '';
    if (target === '') throw new UnsafeEntryError(header.name, 'is a link to nothing');
    this.#refuseBadText(header.name, target, 'link target');
    return target;
  }

  #refuseBadText(shown: string, text: string, what: string): void {
    if (text.includes('\0')) throw new UnsafeEntryError(shown, `has a NUL character in its ${what}`);
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes > this.#maxNameBytes)
      throw new UnsafeEntryError(shown, `has a ${what} of ${bytes} bytes, over ${this.#maxNameBytes}`);
  }

  /** Extractors follow a symbolic link made earlier: an entry at or under one could land anywhere. */
  #refuseUnderSymlink(shown: string, name: string): void {
    if (this.#symlinks.size === 0) return;
    for (let at = name.indexOf('/'); at !== -1; at = name.indexOf('/', at + 1))
      if (this.#symlinks.has(name.slice(0, at)))
        throw new UnsafeEntryError(shown, 'lies under a symbolic link of the archive');
    if (this.#symlinks.has(name))
      throw new UnsafeEntryError(shown, 'replaces a symbolic link of the archive');
  }
}
