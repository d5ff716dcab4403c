import type { Readable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Bytes of a stream between two young-generation collections. */
export const SWEEP_EVERY_BYTES = 8 * 1024 * 1024;

type Collect = () => void;
type ExposedGc = (options: { type: 'minor'; execution: 'sync' }) => void;

/**
 * A stream's chunks live outside V8's heap; each is freed only once a collection finds its small
 * JavaScript handle dead. Those handles are so small that young-generation collections come
 * rarely while bytes stream, and a 2 GiB cache left 25–90 MiB of dead chunks waiting for the
 * external-memory limit to force a full collection (bench/analysis.md, "Caches", memory). A young
 * collection every few MiB frees them while they are young, in about a millisecond each.
 * Undefined when this runtime cannot collect on request (then V8 frees them in its own time).
 */
function findYoungCollection(): Collect | undefined {
  try {
    const exposed = (globalThis as { gc?: unknown }).gc;
    // `--expose-gc` given on the command line, or set here: a new context then carries `gc`.
    if (typeof exposed !== 'function') setFlagsFromString('--expose-gc');
    const gc = (typeof exposed === 'function' ? exposed : runInNewContext('gc')) as ExposedGc;
    if (typeof gc !== 'function') return undefined;
    return () => gc({ type: 'minor', execution: 'sync' });
  } catch {
    return undefined;
  }
}

/** The process's collection, looked up on first use: one V8, one answer. */
let youngCollection: Collect | undefined | null = null;

function collectYoung(): void {
  if (youngCollection === null) youngCollection = findYoungCollection();
  youngCollection?.();
}

/**
 * Counts a stream's bytes and asks for a young collection every SWEEP_EVERY_BYTES, so that a
 * large transfer's dead chunks are freed as it goes and the process's memory stays flat.
 */
export class DeadBufferSweeper {
  #since = 0;

  constructor(
    private readonly every = SWEEP_EVERY_BYTES,
    private readonly collect: Collect = collectYoung,
  ) {}

  passed(bytes: number): void {
    this.#since += bytes;
    if (this.#since < this.every) return;
    this.#since = 0;
    this.collect();
  }
}

/**
 * `stream` itself, its chunks counted by a sweeper once it flows (piped, as `pipe` and `pipeline`
 * do). Listening for 'data' only then keeps the stream's own pace: a 'data' listener added any
 * earlier would start the flow before its reader is there, and chunks would be lost.
 */
export function sweptAsItFlows<S extends Readable>(stream: S, sweeper = new DeadBufferSweeper()): S {
  const count = (chunk: Buffer | string) => sweeper.passed(chunk.length);
  if (stream.readableFlowing === true) stream.on('data', count);
  else stream.once('resume', () => stream.on('data', count));
  return stream;
}
