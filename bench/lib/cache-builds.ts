/*
 * What the caches benchmarks share: svc as users run it (svc-system.ts: `svc server`, one
 * `svc runner docker`, the GitHub double) with caches on the server's disk or in a bucket, builds
 * of a one-step pipeline with a `cache:`, and what the server recorded of their step.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call } from '../../test/api/client.js';
import { buildStatus, startSvcSystem, type SvcSystem } from './svc-system.js';

/** Where the server keeps the caches: its disk, or a bucket of an S3-protocol server. */
export type CacheStorage = { kind: 'disk' } | { kind: 'bucket'; endpoint: string; bucket: string };

/** s3rver takes any credentials, but the SDK's chain must find some (test/support/s3.ts). */
export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export interface CacheSystem {
  readonly system: SvcSystem;
  /** The server's SVC_STORAGE_DIR. */
  readonly storage: string;
  /** Stops the processes and removes the data (archives included). */
  close(): Promise<void>;
}

/** Starts svc with its data (database, archives) in a folder of /tmp removed on close. */
export async function startCacheSystem(storage: CacheStorage): Promise<CacheSystem> {
  const data = mkdtempSync(join(tmpdir(), 'svc-bench-caches-'));
  const env: Record<string, string> = { SVC_STORAGE_DIR: join(data, 'storage') };
  if (storage.kind === 'bucket')
    Object.assign(env, {
      SVC_OBJSTORE_BUCKET: storage.bucket,
      SVC_OBJSTORE_ENDPOINT: storage.endpoint,
      SVC_OBJSTORE_PATH_STYLE: 'true',
      AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
    });
  const system = await startSvcSystem({ serverEnv: env, dataDir: data });
  return {
    system,
    storage: env.SVC_STORAGE_DIR ?? '',
    async close() {
      await system.close();
      rmSync(data, { recursive: true, force: true });
    },
  };
}

/** A pipeline of one step, `deps`, on local/busybox with `cache:` of the workspace's `deps/`, no clone. */
export function cachePipeline(
  key: string,
  restoreKeys: readonly string[],
  commands: readonly string[],
): string {
  return `kind: pipeline
type: docker
name: default
clone:
  disable: true
steps:
- name: deps
  image: local/busybox
  pull: if-not-exists
  cache:
    key: ${key}
    restore_keys: [ ${restoreKeys.join(', ')} ]
    paths: [ deps ]
  commands: [ ${commands.map((command) => JSON.stringify(command)).join(', ')} ]
`;
}

/** Pushes `pipeline` on main as build `number` and waits (≤ `timeoutMs`) until it is done; throws unless green. */
export async function runBuild(
  system: SvcSystem,
  number: number,
  pipeline: string,
  timeoutMs = 300_000,
): Promise<void> {
  await pushBuild(system, number, pipeline);
  const status = await waitDone(system, number, timeoutMs);
  if (status !== 'success')
    throw new Error(`build ${number} ended ${status}:\n${(await stepLog(system, number)).join('\n')}`);
}

/** Pushes `pipeline` on main, which makes build `number`. */
export async function pushBuild(system: SvcSystem, number: number, pipeline: string): Promise<void> {
  system.github.commit(
    system.repo,
    'main',
    { '.drone.yml': pipeline, 'run.txt': `${number}\n` },
    `run ${number}`,
  );
  const status = await system.github.push(system.repo, 'main', system.hookUrl);
  if (status !== 200) throw new Error(`svc answered the webhook with ${status}`);
}

/** Polls build `number` (every 250 ms) until it is done; answers its status. */
export async function waitDone(system: SvcSystem, number: number, timeoutMs: number): Promise<string> {
  for (const deadline = performance.now() + timeoutMs; performance.now() < deadline;) {
    const status = await buildStatus(system, number);
    if (status !== undefined && !['pending', 'running'].includes(status)) return status;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`build ${number} was not done within ${timeoutMs / 1000} s`);
}

/** The lines of build `number`'s step (stage 1, step 1), without their ends. */
export async function stepLog(system: SvcSystem, number: number): Promise<string[]> {
  const answer = await call({ url: system.url }, `/api/repos/${system.repo}/builds/${number}/logs/1/1`, {
    token: system.token,
  });
  return Array.isArray(answer.json) ? (answer.json as { out: string }[]).map((l) => l.out.trimEnd()) : [];
}

/** Build `number` as the API answers it: its status and its stages with their steps (times in epoch seconds). */
export interface BuildAnswer {
  status: string;
  stages?: { id: number; status: string; machine: string; steps?: { started: number; stopped: number }[] }[];
}

export async function buildAnswer(system: SvcSystem, number: number): Promise<BuildAnswer> {
  const answer = await call({ url: system.url }, `/api/repos/${system.repo}/builds/${number}`, {
    token: system.token,
  });
  if (answer.status !== 200) throw new Error(`build ${number}: the API answered ${answer.status}`);
  return answer.json as BuildAnswer;
}

/** Build `number`'s step, start → end in milliseconds as the API reports it (whole seconds; restore and save included). */
export async function stepMs(system: SvcSystem, number: number): Promise<number> {
  const step = (await buildAnswer(system, number)).stages?.[0]?.steps?.[0];
  if (step === undefined || step.started === 0 || step.stopped === 0)
    throw new Error(`build ${number}'s step has no start and end`);
  return (step.stopped - step.started) * 1000;
}

/** A cache line of a step's log: `cache: saved "…" (deps), 82.1 MB in 6.0 s` or `cache: restored "…", …`. */
export interface CacheLine {
  megabytes: number;
  seconds: number;
}

/** The step's `cache: restored` or `cache: saved` line, read; throws when the log has none. */
export function cacheLine(lines: readonly string[], what: 'restored' | 'saved'): CacheLine {
  const pattern = new RegExp(`^cache: ${what} ".*, ([\\d.]+) MB in ([\\d.]+) s`);
  for (const line of lines) {
    const match = pattern.exec(line);
    if (match !== null) return { megabytes: Number(match[1]), seconds: Number(match[2]) };
  }
  throw new Error(`no "cache: ${what}" line in the step's log:\n${lines.join('\n')}`);
}

/** The generator's own line: `deps: 20000 files, 299963559 bytes in 30.2 s`. */
export function depsLine(lines: readonly string[]): { bytes: number; seconds: number } | undefined {
  for (const line of lines) {
    const match = /^deps: \d+ files, (\d+) bytes in ([\d.]+) s/.exec(line);
    if (match !== null) return { bytes: Number(match[1]), seconds: Number(match[2]) };
  }
  return undefined;
}
