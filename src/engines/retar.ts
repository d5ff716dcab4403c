import type { Readable } from 'node:stream';
import type { TarEntry } from '../platform/tar/header.js';
import { archiveStream, rewriteTar } from '../platform/tar/rewrite.js';

/**
 * Each entry of `archive` with its header changed, streamed in order, through svc's own tar reader
 * (headers written anew, data passed on): the archive's error fails the result, and a reader that
 * gives up lets the archive go (the tar that makes it then stops: its stream closed).
 */
export function retar(archive: Readable, change: (header: TarEntry) => TarEntry): Readable {
  return archiveStream([rewriteTar(archive, change)]);
}
