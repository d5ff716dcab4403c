import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Benchmark } from '../lib/benchmark.js';
import { archiveOf } from '../lib/cache-archive.js';
import {
  cachePipeline,
  runBuild,
  startCacheSystem,
  stepLog,
  type CacheStorage,
  type CacheSystem,
} from '../lib/cache-builds.js';
import { randomCommands } from '../lib/deps-folder.js';
import { holdStage, putWhole } from '../lib/held-stage.js';
import { settledMiB } from '../lib/memory.js';
import type { BenchResult } from '../lib/result.js';
import { watchRss, type RssPeak } from '../lib/rss-watch.js';
import { BENCH_BUCKET, startS3Process } from '../lib/s3-process.js';
import { round } from '../lib/stats.js';

/** The cache that streams through: 2 GiB of data zstd cannot shrink. */
const BIG_MIB = 2048;
/** The warm-up's, so that code loaded on first use is not counted as growth. */
const WARM_MIB = 16;
const TIMEOUT_MS = 600_000;

const WARM = cachePipeline('warm', [], randomCommands(WARM_MIB));

type Who = 'server' | 'runner';

/** One window's peak resident memory of each process watched, against its settled value before. */
interface Window {
  peaks: Map<Who, RssPeak & { before: number }>;
  /** Bytes the server read meanwhile (rchar of /proc/<pid>/io: the archive's bytes, mostly). */
  serverRead: number;
  seconds: number;
}

function rchar(pid: number): number {
  return Number(/^rchar:\s+(\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? 0);
}

/** Runs `work` while watching the memory of `who` (the server, the runner or both). */
async function watched(
  caches: CacheSystem,
  who: readonly Who[],
  work: () => Promise<unknown>,
): Promise<Window> {
  const pidOf = (w: Who) => (w === 'server' ? caches.system.server : caches.system.runner).child.pid ?? 0;
  const before = new Map<Who, number>();
  for (const w of who) before.set(w, await settledMiB(pidOf(w)));
  const read = rchar(pidOf('server'));
  const started = performance.now();
  const watch = watchRss(who.map(pidOf));
  let peaks: RssPeak[] = [];
  try {
    await work();
  } finally {
    peaks = watch.stop();
  }
  return {
    peaks: new Map(who.map((w, i) => [w, { ...(peaks[i] as RssPeak), before: before.get(w) ?? 0 }])),
    serverRead: rchar(pidOf('server')) - read,
    seconds: (performance.now() - started) / 1000,
  };
}

function growth(metric: string, who: Who, window: Window, notes: string): BenchResult {
  const peak = window.peaks.get(who);
  if (peak === undefined) throw new Error(`${who} was not watched`);
  const added = round(peak.peak - peak.before, 1);
  return {
    name: 'cache-memory',
    metric,
    svc: added,
    baseline: null,
    ratio: null,
    unit: 'MiB',
    runs: 1,
    p50: added,
    p99: added,
    notes: `${who === 'server' ? 'svc server' : 'svc runner docker'}: peak (VmRSS every 50 ms ${round(peak.sampled, 1)} MiB; VmHWM, reset at the start, ${round(peak.highWater, 1)} MiB) minus VmRSS settled before ${round(peak.before, 1)} MiB; ${notes}`,
  };
}

/** A host folder like the step's in `dir` (made once): 32 copies of 64 MiB of random bytes, and the marker. */
function hostFolder(dir: string): string {
  const folder = join(dir, 'deps');
  if (existsSync(join(folder, '.complete'))) return folder;
  const each = Math.ceil(BIG_MIB / 32);
  execFileSync('sh', [
    '-c',
    `mkdir -p '${folder}' && head -c ${each}M /dev/urandom > '${folder}/r1' && for i in $(seq 2 32); do cp '${folder}/r1' "${folder}/r$i"; done && touch '${folder}/.complete'`,
  ]);
  return folder;
}

/** Build `number` saving 2 GiB under `key`, watched; its `cache: saved` or `cache: saving failed` line. */
async function bigSave(
  caches: CacheSystem,
  number: number,
  key: string,
): Promise<{ window: Window; line: string }> {
  const pipeline = cachePipeline(key, [], randomCommands(BIG_MIB));
  const window = await watched(caches, ['server', 'runner'], () =>
    runBuild(caches.system, number, pipeline, TIMEOUT_MS),
  );
  const line =
    (await stepLog(caches.system, number)).find((l) => /^cache: (saved|saving failed)/.test(l)) ?? '';
  return { window, line: line.replace(/"[^"]*"/, `"${key}"`) };
}

/**
 * Builds on `caches`: a warm-up saving and restoring 16 MiB; two builds each saving 2 GiB under its
 * own key (the first use of a large archive, then the next), server and runner watched; a build
 * restoring the first. When the runner's client gave up on a save (it waits 60 s for the server's
 * answer, which comes once the whole archive is stored), the benchmark stores the archive itself
 * through the same route, so that the restore still has 2 GiB to read.
 */
async function measure(
  caches: CacheSystem,
  label: string,
  where: string,
  work: string,
): Promise<BenchResult[]> {
  const { system } = caches;
  await new Promise((resolve) => setTimeout(resolve, 3_000)); // the runner connects and settles
  await runBuild(system, 1, WARM);
  await runBuild(system, 2, WARM);
  const common = `${BIG_MIB} MiB of random bytes in 32 files (the archive as large), through ${where}; after a warm-up build saving and restoring ${WARM_MIB} MiB`;
  const saveNotes = (save: { window: Window; line: string }, which: string) =>
    `${which}: the step ${round(save.window.seconds, 1)} s, the server read ${round(save.window.serverRead / 2 ** 30, 2)} GiB meanwhile, its log: "${save.line}"; ${common}`;

  const first = await bigSave(caches, 3, 'big');
  const second = await bigSave(caches, 4, 'big-again');
  let seeded = '';
  let next = 5;
  if (!first.line.startsWith('cache: saved')) {
    const held = await holdStage(system, next++);
    try {
      const size = await putWhole(system, held, 'big', archiveOf(hostFolder(work)));
      seeded = `; build 3's save did not end, so the benchmark stored the same 2 GiB (${size} bytes) itself through PUT /rpc/v2/stage/{id}/cache first`;
    } finally {
      await held.release();
    }
  }
  const restorePipeline = cachePipeline('big', [], randomCommands(BIG_MIB));
  const restoring = next;
  const restore = await watched(caches, ['server', 'runner'], () =>
    runBuild(system, restoring, restorePipeline, TIMEOUT_MS),
  );
  const restored =
    (await stepLog(system, restoring)).find((line) => line.startsWith('cache: restored')) ?? '';
  const restoreNotes = `the step ${round(restore.seconds, 1)} s, its log: "${restored.replace(/"[^"]*"/, '"big"')}"${seeded}; ${common}`;
  return [
    growth(
      `server RSS growth while a 2 GiB cache is saved, first, ${label}`,
      'server',
      first.window,
      saveNotes(first, 'the first 2 GiB save of the processes'),
    ),
    growth(
      `runner RSS growth while a 2 GiB cache is saved, first, ${label}`,
      'runner',
      first.window,
      saveNotes(first, 'the first 2 GiB save of the processes'),
    ),
    growth(
      `server RSS growth while a 2 GiB cache is saved, next, ${label}`,
      'server',
      second.window,
      saveNotes(second, 'the next build, another 2 GiB under another key'),
    ),
    growth(
      `runner RSS growth while a 2 GiB cache is saved, next, ${label}`,
      'runner',
      second.window,
      saveNotes(second, 'the next build, another 2 GiB under another key'),
    ),
    growth(`server RSS growth while a 2 GiB cache is restored, ${label}`, 'server', restore, restoreNotes),
    growth(`runner RSS growth while a 2 GiB cache is restored, ${label}`, 'runner', restore, restoreNotes),
  ];
}

/**
 * Issue 34: the server's and the runner's resident memory while a 2 GiB cache streams through them
 * (saved, then restored), on the server's disk and in a bucket (s3rver): peak minus before.
 */
export const cacheMemory: Benchmark = {
  name: 'cache-memory',
  needs: ['docker'],
  async run() {
    const work = mkdtempSync(join(tmpdir(), 'svc-bench-big-'));
    const s3 = await startS3Process();
    const out: BenchResult[] = [];
    try {
      const storages: [CacheStorage, string, string][] = [
        [{ kind: 'disk' }, 'server disk', "the server's disk"],
        [
          { kind: 'bucket', endpoint: s3.endpoint, bucket: BENCH_BUCKET },
          'object storage',
          's3rver (multipart, 5 MiB parts, 2 in flight)',
        ],
      ];
      for (const [storage, label, where] of storages) {
        const caches = await startCacheSystem(storage);
        try {
          out.push(...(await measure(caches, label, where, work)));
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
