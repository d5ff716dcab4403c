import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Benchmark } from '../lib/benchmark.js';
import { bareRestore, bareSave, fileCreateMicros, quietDisk, volumesGone } from '../lib/bare-cache.js';
import {
  cacheLine,
  cachePipeline,
  depsLine,
  runBuild,
  startCacheSystem,
  stepLog,
  type CacheSystem,
  type CacheStorage,
} from '../lib/cache-builds.js';
import { depsCommands, makeDepsFolder, NPM_LIKE } from '../lib/deps-folder.js';
import { PresignedBucket } from '../lib/presigned.js';
import type { BenchResult } from '../lib/result.js';
import { BENCH_BUCKET, startS3Process } from '../lib/s3-process.js';
import { median, percentile, round } from '../lib/stats.js';
import { compareRoutes } from '../lib/transport-routes.js';

/** Builds that restore and save the folder, per storage (after the one that makes it). */
const RUNS = 3;

/** Each build restores the previous one's cache (a restore key) and saves its own. */
const PIPELINE = cachePipeline('deps-${DRONE_BUILD_NUMBER}', ['deps-'], depsCommands(NPM_LIKE));

/** Seconds per run, svc's and the bare pipeline's, for each direction. */
interface Samples {
  save: number[];
  restore: number[];
  bareSave: number[];
  bareRestore: number[];
  megabytes: number;
}

/** The host's copy of the folder, its archive and where it is restored. */
interface Bare {
  folder: string;
  archive: string;
  into: string;
}

/**
 * Builds 1…RUNS+1 on `caches`: the first makes the folder and saves it; each next one restores the
 * newest and saves its own, its times read from the step's cache lines; after each, the bare
 * pipeline saves and restores the host's copy.
 */
async function measure(caches: CacheSystem, bare: Bare, bytes: number): Promise<Samples> {
  const samples: Samples = { save: [], restore: [], bareSave: [], bareRestore: [], megabytes: 0 };
  await runBuild(caches.system, 1, PIPELINE);
  const made = depsLine(await stepLog(caches.system, 1));
  if (made?.bytes !== bytes) throw new Error(`the step made ${made?.bytes} bytes, the host's copy ${bytes}`);
  for (let number = 2; number <= RUNS + 1; number++) {
    await volumesGone(`bench-runner-${process.pid}-1`);
    await quietDisk(dirname(bare.into));
    await runBuild(caches.system, number, PIPELINE);
    const lines = await stepLog(caches.system, number);
    const restored = cacheLine(lines, 'restored');
    samples.restore.push(restored.seconds);
    samples.save.push(cacheLine(lines, 'saved').seconds);
    samples.megabytes = restored.megabytes;
    samples.bareSave.push((await bareSave(bare.folder, bare.archive)) / 1000);
    samples.bareRestore.push((await bareRestore(bare.archive, bare.into)) / 1000);
  }
  return samples;
}

/** MB/s of the folder (its uncompressed bytes) over each run's seconds: svc's against the bare pipeline's. */
function throughput(
  metric: string,
  bytes: number,
  svcSeconds: readonly number[],
  bareSeconds: readonly number[],
  notes: string,
): BenchResult {
  const rate = (seconds: readonly number[]) => seconds.map((s) => bytes / 1e6 / s);
  const svc = median(rate(svcSeconds));
  const baseline = median(rate(bareSeconds));
  return {
    name: 'cache-throughput',
    metric,
    svc: round(svc, 1),
    baseline: round(baseline, 1),
    ratio: round(baseline / svc),
    unit: 'MB/s',
    runs: svcSeconds.length,
    p50: round(svc, 1),
    p99: round(percentile(rate(svcSeconds), 0.01), 1),
    notes: `ratio = baseline / svc (a throughput: > 1 means svc is slower; the target svc ≥ 0.8× is ratio ≤ 1.25); p99 = svc's slowest run; ${notes}`,
  };
}

function results(where: string, label: string, bytes: number, s: Samples, machine: string): BenchResult[] {
  const common = `${RUNS} builds, each restoring the previous build's cache (a restore key) and saving its own, interleaved with the bare pipeline on the host's copy of the same folder (${bytes} bytes, 20,000 files; archive ${s.megabytes} MB); svc's seconds from the step's log lines; medians; ${machine}`;
  return [
    throughput(
      `save, ${label}: 20,000 files / 300 MB`,
      bytes,
      s.save,
      s.bareSave,
      `svc: \`cache: saved … in X s\` (the engine's tar of the step's deps/ → packCache → zstd in svc runner docker → PUT to svc server → ${where}, index updated); bare: tar -cf - deps | zstd -3 -T1 > file; ${common}`,
    ),
    throughput(
      `restore, ${label}: 20,000 files / 300 MB`,
      bytes,
      s.restore,
      s.bareRestore,
      `svc: \`cache: restored … in X s\` (request → ${where} → svc server → runner: zstd -d, restoreCache's checks → the engine extracts into the created container's workspace volume); bare: zstd -dc file | tar -xf - into an emptied folder; ${common}`,
    ),
  ];
}

/**
 * Issue 34: a 300 MB / 20,000-file folder saved and restored by svc (server disk, then a bucket of
 * s3rver), against `tar | zstd` to and from local disk; then, on the bucket, the archive moved
 * through the server against presigned URLs from the runner's side.
 */
export const cacheThroughput: Benchmark = {
  name: 'cache-throughput',
  needs: ['docker'],
  async run() {
    const work = mkdtempSync(join(tmpdir(), 'svc-bench-deps-'));
    const bare = {
      folder: join(work, 'deps'),
      archive: join(work, 'deps.tar.zst'),
      into: join(work, 'restored'),
    };
    const s3 = await startS3Process();
    try {
      const bytes = makeDepsFolder(work, NPM_LIKE);
      const machine = `creating a file costs ${round(fileCreateMicros(work))} µs (20,000 in a row) on this machine's ext4 (a Firecracker guest; 2-core machine, load average (5 min) ${round(loadavg()[1] ?? 0, 2)}); before each build the benchmark waited for the runner's volumes of the build before to be removed, and before it and each bare restore for the disk to settle (creating 2,000 files ≤ 100 µs each, at most 90 s: bench/lib/bare-cache.ts quietDisk)`;
      const out: BenchResult[] = [];
      const storages: [CacheStorage, string, string][] = [
        [{ kind: 'disk' }, 'server disk', "the server's disk (a file written, flushed, renamed)"],
        [
          { kind: 'bucket', endpoint: s3.endpoint, bucket: BENCH_BUCKET },
          'object storage',
          's3rver (multipart upload, 5 MiB parts, 2 in flight)',
        ],
      ];
      for (const [storage, label, where] of storages) {
        const caches = await startCacheSystem(storage);
        try {
          out.push(...results(where, label, bytes, await measure(caches, bare, bytes), machine));
          if (storage.kind === 'bucket') {
            const bucket = new PresignedBucket(s3.endpoint, BENCH_BUCKET);
            try {
              out.push(...(await compareRoutes(caches, bucket, bare.folder, RUNS + 2)));
            } finally {
              bucket.close();
            }
          }
        } finally {
          await caches.close();
        }
      }
      return out;
    } finally {
      await s3.close();
      rmSync(work, { recursive: true, force: true });
    }
  },
};
