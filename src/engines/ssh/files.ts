import { spawn } from 'node:child_process';
import { posix } from 'node:path';
import { PassThrough } from 'node:stream';
import type { StepFiles } from '../../core/engine.js';
import type { SshConnection } from './connection.js';
import { tarFromHost, tarToHost, type HostPaths } from './relocate.js';
import { quote } from './shell.js';

/**
 * Extracts at `/` as the login user: owners are not restored (files are the user's), modes are kept
 * as the archive has them (the archive's setuid bits are dropped before it comes here). GNU tar,
 * busybox tar and bsdtar (macOS) all take these flags; none of them takes `..` or absolute names.
 */
const EXTRACT = 'tar -x -p --no-same-owner -f - -C /';

/**
 * A POSIX host's files for caches and artifacts (StepFiles): tar streams over the stage's SSH
 * connection, one channel each, nothing held whole in memory. Paths are the step's, moved to where
 * they lie on the host (the workspace is in the stage's folder). `tar` must be on the host's PATH.
 */
export function hostFiles(connection: SshConnection, paths: HostPaths): StepFiles {
  return {
    async put(archive, signal) {
      const input = tarToHost(archive, paths);
      const errors: Buffer[] = [];
      try {
        const exit = await connection.exec(EXTRACT, {
          stdin: input,
          stderr: (chunk) => errors.push(chunk),
          signal,
        });
        if (exit.code !== 0) throw new Error(`tar on ${connection.name} failed: ${why(errors, exit.code)}`);
      } finally {
        // A tar that stopped early (or never started) leaves the archive unread: let it go.
        if (!input.readableEnded) input.destroy();
        if (!archive.readableEnded) archive.destroy();
      }
    },

    async get(path, signal) {
      const local = paths.toHost(path);
      const there = await connection.check(
        `if [ -e ${quote(local)} ] || [ -L ${quote(local)} ]; then echo y; fi`,
      );
      if (there.trim() !== 'y') return undefined;
      const output = new PassThrough();
      // Its reader listens for the tar's failure; one that stopped reading (another path of the
      // same cache failed first) does not, and the failure must then not end the process.
      output.on('error', () => undefined);
      const errors: Buffer[] = [];
      // Read no further (the reader gave up): the channel is closed, and the host's tar ends.
      const dropped = new AbortController();
      output.once('close', () => {
        if (!output.readableEnded) dropped.abort();
      });
      // COPYFILE_DISABLE: macOS's tar would add AppleDouble `._` files for extended attributes.
      const command = `COPYFILE_DISABLE=1 tar -c -f - -C ${quote(posix.dirname(local))} -- ${quote(posix.basename(local))}`;
      connection
        .exec(command, {
          stdout: output,
          stderr: (chunk) => errors.push(chunk),
          signal: signal === undefined ? dropped.signal : AbortSignal.any([signal, dropped.signal]),
        })
        .then(
          (exit) => {
            if (exit.code === 0) output.end();
            else
              output.destroy(
                new Error(`tar of ${path} on ${connection.name} failed: ${why(errors, exit.code)}`),
              );
          },
          (error: unknown) => output.destroy(error as Error),
        );
      return tarFromHost(output, paths);
    },
  };
}

/**
 * `svc exec`: the working copy on this machine is the workspace; the host has none, so it is
 * copied there (a tar stream through the connection) before the first step.
 */
export async function uploadWorkingCopy(
  connection: SshConnection,
  local: string,
  remote: string,
): Promise<void> {
  const tar = spawn('tar', ['-C', local, '-cf', '-', '.'], { stdio: ['ignore', 'pipe', 'pipe'] });
  // Read at once: Node discards a child's unread output when it exits (a small tree packs before
  // the channel opens); the PassThrough holds it, and holds tar back by backpressure.
  const archive = tar.stdout.pipe(new PassThrough());
  const errors: Buffer[] = [];
  tar.stderr.on('data', (chunk: Buffer) => errors.push(chunk));
  // A tar that cannot start (not installed) emits 'error', which unheard would end the process;
  // its empty output still ends the archive, so the host's tar fails and the cause is told here.
  let unstarted: Error | undefined;
  tar.once('error', (error) => (unstarted = error));
  const packed = new Promise<number>((resolve) => tar.on('close', (code) => resolve(code ?? 1)));
  const cannotPack = () =>
    new Error(`cannot pack ${local}: ${unstarted?.message ?? Buffer.concat(errors).toString('utf8').trim()}`);
  try {
    await connection.check(`tar -C ${quote(remote)} -xf -`, archive);
  } catch (error) {
    if (unstarted !== undefined) throw cannotPack();
    // Nothing reads the rest of the archive any more: tar would wait on a full pipe.
    tar.kill();
    throw new Error(`cannot copy ${local} to the host: ${(error as Error).message}`);
  }
  if ((await packed) !== 0) throw cannotPack();
}

/** What the host's tar said, on one line; its exit when it said nothing. */
function why(errors: Buffer[], code: number | null): string {
  const said = Buffer.concat(errors)
    .toString('utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  return said.length > 0 ? said.join('; ') : `exit ${code ?? 'by a signal'}`;
}
