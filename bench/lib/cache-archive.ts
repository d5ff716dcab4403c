/*
 * The runner's side of a cache, made outside a runner: the archive of a folder as svc makes it
 * (src/runner/cache/around.ts: the engine's tar, packCache, zstd) and its reading back (zstd,
 * restoreCache), so that the benchmarks can move the same bytes by other routes.
 */
import { spawn } from 'node:child_process';
import { basename, dirname } from 'node:path';
import { PassThrough, Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createZstdCompress, createZstdDecompress } from 'node:zlib';
import { packCache, restoreCache } from '../../src/runner/cache/archive.js';
import { cachePlaces, type CachePlace } from '../../src/runner/cache/paths.js';

/** The step's `paths: [deps]` in Docker's workspace, as the runner names it. */
function depsPlace(): CachePlace {
  const [place] = cachePlaces(['deps'], '/drone/src');
  if (place === undefined) throw new Error('no cache place');
  return place;
}

/**
 * The cache archive of `folder` (named `deps`): `tar -c` of it stands for the engine's archive
 * (`docker cp` makes the same tar), then svc's packCache and zstd, streamed.
 */
export function archiveOf(folder: string): Readable {
  const tar = spawn('tar', ['-cf', '-', '-C', dirname(folder), basename(folder)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  }).stdout;
  const archive = new PassThrough();
  async function* parts() {
    yield await Promise.resolve({ place: depsPlace(), tar });
  }
  pipeline(packCache(parts()), createZstdCompress(), archive).catch((error: unknown) =>
    archive.destroy(error as Error),
  );
  return archive;
}

/** Reads a cache archive as the runner does before handing it to the engine (zstd, restoreCache); answers its tar bytes. */
export async function readArchive(body: Readable): Promise<number> {
  let bytes = 0;
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      done();
    },
  });
  await pipeline(restoreCache(body.pipe(createZstdDecompress()), [depsPlace()]), sink);
  return bytes;
}
