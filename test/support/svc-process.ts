import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
/** The bundled command users run (`npm run build` writes it). */
export const BUILT = fileURLToPath(new URL('../../dist/bundle/main.js', import.meta.url));
// An absolute loader path: the child runs in a temporary folder, where a bare `tsx` would not resolve.
const TSX = createRequire(import.meta.url).resolve('tsx');

/** Result of a finished `svc` command. */
export interface SvcRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `svc <args>` from the sources (through tsx) to completion, with only the given environment. */
export function runSvc(
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string>; built?: boolean },
): Promise<SvcRun> {
  const child = startSvc(args, options);
  return finished(child);
}

/**
 * Starts `svc <args>` from the sources, or with `built` the bundle users run; the caller stops it.
 * PATH and HOME are kept, nothing else.
 */
export function startSvc(
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string>; built?: boolean },
): ChildProcessWithoutNullStreams {
  // Tests run the sources; benchmarks (SVC_RUN_BUILT=true) the built command, as users run it.
  const built = options.built === true || process.env.SVC_RUN_BUILT === 'true';
  const command = built ? [BUILT] : ['--import', pathToFileURL(TSX).href, MAIN];
  // SVC_CHILD_NODE_OPTIONS reaches svc's processes only (not the test runner): to profile them
  // (`--cpu-prof`) or try V8 flags in a benchmark.
  const nodeOptions = process.env.SVC_CHILD_NODE_OPTIONS;
  return spawn(process.execPath, [...command, ...args], {
    cwd: options.cwd,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}),
      ...options.env,
    },
  });
}

/** Collects the output of a child until it exits. */
export function finished(child: ChildProcessWithoutNullStreams): Promise<SvcRun> {
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * Waits until the server logs the address it listens on, and returns its base URL.
 * Rejects when the process exits first or nothing shows within the time limit.
 */
export function listeningUrl(child: ChildProcessWithoutNullStreams, timeoutMs = 20_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let log = '';
    const timer = setTimeout(
      () => reject(new Error(`server did not start within ${timeoutMs} ms:\n${log}`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer): void => {
      log += chunk.toString();
      const match = /listening on (https?:\/\/[^\s;]+)/.exec(log);
      if (match?.[1]) {
        clearTimeout(timer);
        child.stderr.off('data', onData);
        resolve(match[1]);
      }
    };
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${log}`));
    });
  });
}
