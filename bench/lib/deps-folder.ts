/*
 * The caches benchmarks' "dependencies": a folder like node_modules written by a synthetic
 * `npm ci`, made by the same BusyBox awk program inside a step (local/busybox) and on this machine
 * (the host's busybox, the same 1.35.0), so that both sides of a comparison hold the same bytes.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Writes `files` files, about `bytes` in all, under `dir`, 40 to a package. The text reads like
 * JavaScript: lines drawn from a vocabulary with a skewed distribution, grouped in a pool of 1 KiB
 * blocks that the files share (as packages share code), so that `zstd -3` compresses it ~3.8×, as
 * it does real dependencies. With `pace` > 0, each twentieth of the files is done no sooner than
 * its share of `pace` seconds after the start (a paced download). Prints one summary line.
 */
const GENERATOR = String.raw`
function word() { return vocab[int(rand() * rand() * rand() * NV)] }
function line(t) {
  t = int(rand() * 8)
  if (t == 0) return "const " word() " = require('" word() "/" word() "');"
  if (t == 1) return "function " word() "(" word() ", " word() ") {"
  if (t == 2) return "  return " word() "." word() "(" word() ", " int(rand() * 1000) ");"
  if (t == 3) return "  if (" word() " === " word() ") throw new Error('" word() " " word() " " word() "');"
  if (t == 4) return "}"
  if (t == 5) return "// " word() " " word() " " word() " " word() " " word() " " word()
  if (t == 6) return "  " word() "." word() " = " word() " + \"" word() "\";"
  return "module.exports." word() " = " word() ";"
}
function uptime(up, u) { getline up < "/proc/uptime"; close("/proc/uptime"); split(up, u, " "); return u[1] }
BEGIN {
  start = uptime()
  srand(seed)
  NV = 6000
  letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_$"
  for (i = 0; i < NV; i++) {
    w = ""
    n = 3 + int(rand() * 10)
    for (j = 0; j < n; j++) w = w substr(letters, 1 + int(rand() * 54), 1)
    vocab[i] = w
  }
  NB = 12000
  for (b = 0; b < NB; b++) {
    s = ""
    while (length(s) < 1024) s = s line() "\n"
    block[b] = s
  }
  per = bytes / files
  written = 0
  for (f = 0; f < files; f++) {
    if (f % 40 == 0) { pkg = dir "/pkg-" int(f / 40); system("mkdir -p " pkg "/lib") }
    name = pkg "/lib/m" f ".js"
    want = int(per * (0.1 + rand() * 1.8)) - 512
    header = "/* " name " " f " */\n"
    printf "%s", header > name
    size = length(header)
    while (size < want) { s = block[int(rand() * NB)]; printf "%s", s > name; size += length(s) }
    close(name)
    written += size
    if (pace > 0 && (f + 1) % (files / 20) == 0) {
      wait = start + pace * (f + 1) / files - uptime()
      if (wait > 0) system("sleep " wait)
    }
  }
  printf "deps: %d files, %d bytes in %.1f s\n", files, written, uptime() - start
}
`;

/** What the folder holds: the 20,000 files, 300 MB. */
export interface DepsShape {
  files: number;
  bytes: number;
  /** Seconds the writing is stretched to (0: as fast as it goes). */
  pace: number;
}

export const NPM_LIKE: DepsShape = { files: 20_000, bytes: 300_000_000, pace: 0 };

/** The same content on every run and on both sides. */
const SEED = 34;

function awkArgs(dir: string, shape: DepsShape, program: string): string[] {
  const vars = { dir, files: shape.files, bytes: shape.bytes, pace: shape.pace, seed: SEED };
  return [...Object.entries(vars).flatMap(([name, value]) => ['-v', `${name}=${value}`]), '-f', program];
}

/**
 * The commands of a step that makes `deps/` in its workspace as `npm ci` would, unless the folder
 * is already complete (its `.complete` marker, written last, came back with the cache).
 */
export function depsCommands(shape: DepsShape): string[] {
  const program = Buffer.from(GENERATOR).toString('base64');
  return [
    'if [ -f deps/.complete ]; then echo "deps: complete, nothing to do"; exit 0; fi',
    `echo ${program} | base64 -d > /tmp/deps.awk`,
    'rm -rf deps && mkdir deps',
    ['awk', ...awkArgs('deps', shape, '/tmp/deps.awk')].join(' '),
    'touch deps/.complete',
  ];
}

/**
 * The commands of a step that fills `deps/` with `mib` MiB in 32 files, unless it is complete: one
 * of random bytes, copied (/dev/urandom is slow here). zstd finds nothing to shrink — a copy is
 * further back than its window — so the archive is as large as the folder.
 */
export function randomCommands(mib: number): string[] {
  const each = Math.ceil(mib / 32);
  return [
    'if [ -f deps/.complete ]; then echo "deps: complete, nothing to do"; exit 0; fi',
    `mkdir -p deps && head -c ${each}m /dev/urandom > deps/r1`,
    'for i in $(seq 2 32); do cat deps/r1 > deps/r$i; done',
    'touch deps/.complete',
  ];
}

/** Makes the folder at `dir/deps` on this machine, with the same program as the step; answers its bytes. */
export function makeDepsFolder(dir: string, shape: DepsShape): number {
  mkdirSync(join(dir, 'deps'), { recursive: true });
  const program = join(dir, 'deps.awk');
  execFileSync('sh', ['-c', `cat > ${program}`], { input: GENERATOR });
  execFileSync('busybox', ['awk', ...awkArgs('deps', shape, program)], { cwd: dir, stdio: 'ignore' });
  execFileSync('touch', [join(dir, 'deps', '.complete')]);
  return folderBytes(join(dir, 'deps'));
}

/** The bytes of a folder's files (their apparent sizes). */
export function folderBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size;
  return total;
}
