/*
 * The floor a cache's save and restore are measured against: the bare pipeline on this machine,
 * `tar -c | zstd -3 -T1` to a file and `zstd -dc | tar -x` back, and the cost of creating a file
 * here (what bounds restoring 20,000 of them).
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { timeCommand } from './process.js';

/** `tar -cf - FOLDER | zstd -3 -T1 > ARCHIVE`, in milliseconds. */
export function bareSave(folder: string, archive: string): Promise<number> {
  const script = `tar -cf - -C '${dirname(folder)}' '${basename(folder)}' | zstd -q -3 -T1 > '${archive}'`;
  return timeCommand('bash', ['-c', `set -o pipefail; ${script}`]);
}

/**
 * `zstd -dc ARCHIVE | tar -xf - -C INTO` into an emptied folder, in milliseconds (the emptying not
 * counted, nor the wait for the disk to settle after it: see quietDisk).
 */
export async function bareRestore(archive: string, into: string): Promise<number> {
  rmSync(into, { recursive: true, force: true });
  mkdirSync(into, { recursive: true });
  await quietDisk(dirname(into));
  return timeCommand('bash', ['-c', `set -o pipefail; zstd -q -dc '${archive}' | tar -xf - -C '${into}'`]);
}

/**
 * Microseconds to create one empty file here, on average over `files` of them in folders of 40 (as
 * the folder has them): the cost grows as they pile up, so a small sample says too little.
 */
export function fileCreateMicros(dir: string, files = 20_000, keep = false): number {
  const at = join(dir, keep ? `disk-probes/${performance.now().toFixed(0)}` : 'create-probe');
  rmSync(at, { recursive: true, force: true });
  const started = performance.now();
  for (let i = 0; i < files; i++) {
    if (i % 40 === 0) mkdirSync(join(at, `p${i / 40}`), { recursive: true });
    closeSync(openSync(join(at, `p${Math.floor(i / 40)}`, `f${i}`), 'w'));
  }
  const micros = ((performance.now() - started) * 1000) / files;
  if (!keep) rmSync(at, { recursive: true, force: true });
  return micros;
}

/**
 * Waits, at most `maxMs`, until creating files in `dir` costs no more than `wantMicros` each (2,000
 * in a row), and says how long it waited and what the last probe found. On this machine's disk
 * (ext4 in a Firecracker guest) creating files costs 10–30× more for tens of seconds after
 * thousands were deleted (a build's workspace removed), or while another process writes: a restore
 * measured then measures the disk. The benchmarks wait for it before each timed part, svc's and the
 * bare pipeline's alike.
 */
export async function quietDisk(
  dir: string,
  maxMs = 90_000,
  wantMicros = 100,
): Promise<{ waitedMs: number; micros: number }> {
  const started = performance.now();
  for (;;) {
    // The probes' files stay until removeDiskProbes: deleting them would slow the next probe.
    const micros = fileCreateMicros(dir, 2_000, true);
    const waitedMs = performance.now() - started;
    if (micros <= wantMicros || waitedMs >= maxMs) return { waitedMs, micros };
    await new Promise((resolve) => setTimeout(resolve, 3_000));
  }
}

/** Removes what quietDisk's probes left in `dir`, once the timed parts are over. */
export function removeDiskProbes(dir: string): void {
  rmSync(join(dir, 'disk-probes'), { recursive: true, force: true });
}

/**
 * Waits (at most `maxMs`) until the Docker engine holds no volume of the runner `owner`: a
 * build's end is reported before its workspace volume is removed, and that removal (20,000 files)
 * would run beside the next build's restore. Answers the milliseconds waited.
 */
export async function volumesGone(owner: string, maxMs = 60_000): Promise<number> {
  const started = performance.now();
  for (;;) {
    const left = execFileSync('docker', ['volume', 'ls', '-q', '--filter', `label=io.svc.owner=${owner}`], {
      encoding: 'utf8',
    }).trim();
    const waited = performance.now() - started;
    if (left === '' || waited >= maxMs) return waited;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
