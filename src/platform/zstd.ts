import { createZstdCompress, createZstdDecompress, type ZstdCompress, type ZstdDecompress } from 'node:zlib';

/**
 * zstd's pieces in and out. node:zlib's default (16 KiB) costs ~10 % more CPU on a 300 MB cache
 * than 256 KiB: a trip to the thread pool and a chunk per 16 KiB (bench/analysis.md, "Caches").
 */
const ZSTD_CHUNK = 256 * 1024;

/** The compressor of caches and tar.zst downloads: zstd's default level (3), in 256 KiB pieces. */
export function zstdCompressor(): ZstdCompress {
  return createZstdCompress({ chunkSize: ZSTD_CHUNK });
}

/** Their decompressor, in 256 KiB pieces. */
export function zstdDecompressor(): ZstdDecompress {
  return createZstdDecompress({ chunkSize: ZSTD_CHUNK });
}
