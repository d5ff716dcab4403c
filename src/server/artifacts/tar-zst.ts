import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as tar from 'tar-stream';
import type { Artifact } from '../../core/artifact.js';
import type { BlobStore } from '../../core/blob.js';
import { readCentralDirectory, type ZipEntry } from '../../platform/zip/central-directory.js';
import { entryStream } from '../../platform/zip/entry-stream.js';
import { forwardZipBlob } from '../../platform/zip/forward-blob.js';
import type { ZipBlob } from '../../platform/zip/zip-blob.js';
import { zstdCompressor } from '../../platform/zstd.js';
import { artifactZip } from './zip-blob.js';

/**
 * `artifacts` as one tar compressed with zstd, entries named as in their zips (`prefix` before
 * each): what `artifacts: from:` unpacks, and the `tar.zst` download. Each zip's entries are read
 * one after the other through one read of the zip, not two a file.
 */
export function artifactsTarZst(
  blobs: Pick<BlobStore, 'get'>,
  artifacts: readonly Artifact[],
  prefix = '',
): Readable {
  const pack = tar.pack();
  const out = new PassThrough();
  void (async () => {
    for (const artifact of artifacts) {
      const zip = artifactZip(blobs, artifact);
      const entries = await readCentralDirectory(zip);
      const forward = forwardZipBlob(zip);
      try {
        await packEntries(pack, forward, entries, prefix);
      } finally {
        forward.close();
      }
    }
    pack.finalize();
  })().catch((error: unknown) => out.destroy(error as Error));
  pipeline(pack, zstdCompressor(), out).catch((error: unknown) => out.destroy(error as Error));
  return out;
}

async function packEntries(
  pack: tar.Pack,
  zip: ZipBlob,
  entries: readonly ZipEntry[],
  prefix: string,
): Promise<void> {
  for (const entry of entries) {
    const name = prefix + entry.name.replace(/\/$/, '');
    const mode = entry.mode & 0o7777;
    if (entry.isDirectory) {
      pack.entry({ name, type: 'directory', mode, mtime: entry.modified });
      continue;
    }
    const body = await entryStream(zip, entry);
    if (entry.isSymlink) {
      const chunks: Buffer[] = [];
      for await (const chunk of body) chunks.push(chunk as Buffer);
      pack.entry({
        name,
        type: 'symlink',
        linkname: Buffer.concat(chunks).toString(),
        mode,
        mtime: entry.modified,
      });
      continue;
    }
    await new Promise<void>((resolve, reject) => {
      const sink = pack.entry({ name, size: entry.size, mode, mtime: entry.modified }, (error) =>
        error ? reject(error) : resolve(),
      );
      pipeline(body, sink).catch(reject);
    });
  }
}
