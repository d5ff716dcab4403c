/*
 * s3rver in a process of its own, as a bucket is another machine: the benchmark's own event loop
 * (which plays the runner in the presigned comparison) then does not also serve S3.
 * Run as a script (forked), it starts s3rver and sends its endpoint; `startS3Process` is the parent's side.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startS3 } from '../../test/support/s3.js';

/** The bucket the caches benchmarks use. */
export const BENCH_BUCKET = 'svc-bench';

export interface S3Process {
  /** `http://127.0.0.1:<port>`. */
  readonly endpoint: string;
  readonly pid: number;
  /** Stops s3rver (its files are removed) and waits for the process to end. */
  close(): Promise<void>;
}

/** Forks this file (with this process's loader flags) and waits for s3rver to listen. */
export async function startS3Process(): Promise<S3Process> {
  const child = fork(fileURLToPath(import.meta.url), ['--serve'], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const endpoint = await new Promise<string>((resolve, reject) => {
    child.once('message', (message: { endpoint: string }) => resolve(message.endpoint));
    child.once('exit', (code) => reject(new Error(`s3rver's process exited (${code}) before it listened`)));
  });
  return {
    endpoint,
    pid: child.pid ?? 0,
    async close() {
      if (child.connected) child.send('stop');
      await exited;
    },
  };
}

if (process.argv[2] === '--serve' && process.send !== undefined) {
  const s3 = await startS3([BENCH_BUCKET]);
  process.send({ endpoint: s3.endpoint });
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    void s3.close().then(() => process.exit(0));
  };
  process.once('message', stop);
  process.once('disconnect', stop);
}
