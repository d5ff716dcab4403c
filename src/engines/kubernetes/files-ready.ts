import type { PodWatcher } from './watcher.js';
import { FILES_CONTAINER } from './pod-files.js';
import { stepState } from './pod-state.js';

/**
 * Whether a stage pod's files container (pod-files.ts) runs: watched for once, from the first
 * step that moves files, for as long as a step's start may take (its image may be pulled). A
 * container that ended or cannot start, or no start in time, rejects every wait with why.
 */
export class FilesReady {
  readonly #running: Promise<void>;

  constructor(watcher: PodWatcher, image: string, timeout: number) {
    this.#running = running(watcher, image, timeout);
    // Waited for by each move; unheard meanwhile, its failure is no unhandled rejection.
    this.#running.catch(() => undefined);
  }

  /** Resolves once it runs; an abort of `signal` rejects this wait only (an AbortError). */
  async wait(signal?: AbortSignal): Promise<void> {
    if (signal === undefined) return this.#running;
    signal.throwIfAborted();
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => {
        const error = new Error('moving the step’s files was stopped', { cause: signal.reason });
        error.name = 'AbortError';
        reject(error);
      };
      signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      await Promise.race([this.#running, aborted]);
    } finally {
      if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
    }
  }
}

async function running(watcher: PodWatcher, image: string, timeout: number): Promise<void> {
  const what = `the pod's files container (${image})`;
  let last = '';
  try {
    await watcher.until((pod) => {
      const state = stepState(pod, FILES_CONTAINER, image);
      if (state.kind === 'running') return true;
      const why =
        state.kind === 'exited'
          ? `exit code ${state.exitCode}${state.reason === '' ? '' : ` (${state.reason})`}`
          : 'reason' in state
            ? `${state.reason}${state.message === '' ? '' : `: ${state.message}`}`
            : '';
      if (state.kind === 'exited' || state.kind === 'placeholder-ended' || state.kind === 'failed')
        throw new Error(`${what} cannot run${why === '' ? '' : `: ${why}`}`);
      last = why;
      return undefined;
    }, AbortSignal.timeout(timeout));
  } catch (error) {
    if (!(error instanceof Error) || error.name !== 'TimeoutError') throw error;
    throw new Error(
      `${what} did not start within ${Math.round(timeout / 1000)} s${last === '' ? '' : `: ${last}`}`,
      { cause: error },
    );
  }
}
