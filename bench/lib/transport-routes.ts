/*
 * Issue 34's other design, measured: the runner moving a cache archive straight to and from the
 * bucket with presigned URLs, against svc's route through the server (the runner protocol's cache
 * routes, by the runner's own client), for the same archive, interleaved.
 */
import { RPC_SECRET } from '../../test/e2e/system.js';
import { RpcStageFiles } from '../../src/runner/client/stage-files.js';
import { cpuSeconds } from './cpu.js';
import { archiveOf, readArchive } from './cache-archive.js';
import type { CacheSystem } from './cache-builds.js';
import { holdStage } from './held-stage.js';
import type { PresignedBucket } from './presigned.js';
import type { BenchResult } from './result.js';
import { timeComparison } from './result.js';
import { median, round } from './stats.js';

/** Rounds of the interleaved routes. */
const ROUNDS = 3;

/** How each route moves the archive, timed: milliseconds. */
type Route = () => Promise<number>;

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/**
 * Uploads and downloads the archive of `folder` by both routes while build `number` (a step that
 * sleeps) holds a stage, which the server's routes need; cancels it after.
 */
export async function compareRoutes(
  caches: CacheSystem,
  bucket: PresignedBucket,
  folder: string,
  number: number,
): Promise<BenchResult[]> {
  const { system } = caches;
  const stage = await holdStage(system, number);
  const server = new RpcStageFiles({
    endpoint: system.url,
    secret: RPC_SECRET,
    runner: stage.machine,
  }).caches(stage.id);
  const serverPid = system.server.child.pid;
  const serverCpu: number[] = [];
  let archiveBytes = 0;
  const throughServer: Route = async () => {
    const cpu = cpuSeconds(serverPid);
    const ms = await timed(async () => {
      const answer = await server.save('route-comparison', archiveOf(folder));
      if ('refused' in answer) throw new Error(answer.refused);
      archiveBytes = answer.size;
    });
    serverCpu.push(cpuSeconds(serverPid) - cpu);
    return ms;
  };
  const routes: Record<'server' | 'multipart' | 'single' | 'serverGet' | 'presignedGet', Route> = {
    server: throughServer,
    multipart: () => timed(() => bucket.putMultipart('presigned/multipart', archiveOf(folder))),
    single: () => timed(() => bucket.putSingle('presigned/single', archiveOf(folder))),
    serverGet: () =>
      timed(async () => {
        const hit = await server.restore('route-comparison', []);
        if (hit === undefined) throw new Error('the server found no archive to restore');
        await readArchive(hit.body);
      }),
    presignedGet: () => timed(async () => readArchive(await bucket.get('presigned/multipart'))),
  };
  const samples = { server: [], multipart: [], single: [], serverGet: [], presignedGet: [] } as Record<
    keyof typeof routes,
    number[]
  >;
  try {
    // One of each first (code loaded, objects in place), then rounds in a rotating order.
    for (const name of Object.keys(routes) as (keyof typeof routes)[]) await routes[name]();
    serverCpu.length = 0;
    const uploads = ['server', 'multipart', 'single'] as const;
    const downloads = ['serverGet', 'presignedGet'] as const;
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < uploads.length; i++) {
        const name = uploads[(round + i) % uploads.length] ?? 'server';
        samples[name].push(await routes[name]());
      }
      for (let i = 0; i < downloads.length; i++) {
        const name = downloads[(round + i) % downloads.length] ?? 'serverGet';
        samples[name].push(await routes[name]());
      }
    }
  } finally {
    await stage.release();
  }
  const megabytes = round(archiveBytes / 1e6, 1);
  const common = `the archive of the 300 MB folder (${megabytes} MB), made as the runner makes it (tar of the folder, svc's packCache, node:zlib zstd) in the benchmark's process standing for the runner; s3rver in its own process; ${ROUNDS} rounds in rotating order after one of each, medians`;
  return [
    timeComparison(
      {
        name: 'cache-throughput',
        metric: 'archive upload into the bucket: through the server vs presigned multipart from the runner',
        notes: `svc: PUT /rpc/v2/stage/{id}/cache by the runner's own client (src/runner/client/caches.ts), the server streaming it on as a multipart upload (5 MiB parts, 2 in flight); baseline: the runner uploading the parts itself with presigned UploadPart URLs (5 MiB, 2 in flight; create and complete by the SDK, as the server would); ${common}; server CPU per upload ${round(median(serverCpu), 2)} s; a single presigned PUT (chunked, which s3rver takes and AWS S3 refuses): ${round(median(samples.single) / 1000, 2)} s`,
      },
      samples.server,
      samples.multipart,
    ),
    timeComparison(
      {
        name: 'cache-throughput',
        metric: 'archive download from the bucket: through the server vs a presigned GET',
        notes: `svc: POST /rpc/v2/stage/{id}/cache/restore by the runner's client, the server streaming the object from the bucket; baseline: a presigned GET of the same object; both read as the runner reads it (zstd, restoreCache) into nothing; ${common}`,
      },
      samples.serverGet,
      samples.presignedGet,
    ),
  ];
}
