/**
 * The Starlark worker thread: go.starlark.net compiled to WebAssembly (vendor/starlark), loaded
 * once per worker. It runs the evaluations the evaluator sends, one at a time, and asks the
 * evaluator for the repository files that load() names.
 *
 * Only node: modules and types are imported: from src/, Node runs this file by stripping its
 * types, and that does not map the `.js` specifiers of other svc modules to their `.ts` files.
 */
import { readFile } from 'node:fs/promises';
import { parentPort, workerData } from 'node:worker_threads';
import type { FromWorker, ToWorker, WorkerSetup } from './protocol.js';

/** The part of the WebAssembly global the worker uses (svc's TypeScript libraries do not type it). */
interface WebAssemblyApi {
  compile(bytes: Uint8Array): Promise<WasmModule>;
  instantiate(module: WasmModule, imports: object): Promise<WasmInstance>;
}
type WasmModule = { readonly kind: 'WebAssembly.Module' };
type WasmInstance = { readonly kind: 'WebAssembly.Instance' };

/** The part of the `Go` class of Go's wasm_exec.js that the worker uses. */
interface GoRuntime {
  argv: string[];
  exit: (code: number) => void;
  readonly importObject: object;
  /** Runs the Go program; settles when it ends. */
  run(instance: WasmInstance): Promise<void>;
}

/** The function go/main.go hands over. */
type GoEvaluate = (
  request: string,
  read: (path: string) => Promise<string | null>,
  done: (outcome: string) => void,
) => void;

/** Name of the global function through which Go's main hands over evaluate (go/main.go). */
const HAND_OVER = '__svcStarlarkHandOver';

/**
 * The most memory the interpreter may take, in WebAssembly pages of 64 KiB: 256 MiB. Go declares
 * no maximum, so a program such as `"x" * 2000000000` would grow the worker by gigabytes; with one,
 * Go stops with "runtime: out of memory" and the evaluator reports that.
 */
const MAX_MEMORY_PAGES = 4096;

async function startGo(setup: WorkerSetup, post: (message: FromWorker) => void): Promise<GoEvaluate> {
  await import(setup.runtimeUrl); // wasm_exec.js defines globalThis.Go
  const { Go, WebAssembly } = globalThis as unknown as {
    Go: new () => GoRuntime;
    WebAssembly: WebAssemblyApi;
  };
  const goOutput = captureGoOutput();
  const go = new Go();
  const wasm = withMemoryMaximum(await readFile(new URL(setup.wasmUrl)), MAX_MEMORY_PAGES);
  const module = await WebAssembly.compile(wasm);
  const global = globalThis as unknown as Record<string, unknown>;
  const handedOver = new Promise<GoEvaluate>((resolve) => {
    global[HAND_OVER] = resolve;
  });
  go.argv = ['starlark', HAND_OVER];
  // The Go program only ends on a fatal error (e.g. out of memory): this worker is then unusable.
  go.exit = (code) => post({ type: 'exited', code, output: goOutput() });
  const instance = await WebAssembly.instantiate(module, go.importObject);
  const ended = go.run(instance).then(() => {
    throw new Error('the Starlark evaluator ended before it started');
  });
  try {
    return await Promise.race([handedOver, ended]);
  } finally {
    delete global[HAND_OVER];
  }
}

/**
 * Keeps what Go writes (its runtime's fatal errors, on stderr) instead of logging it: an exit is
 * reported with it. wasm_exec.js, lacking Node's fs as a global, writes through a stand-in whose
 * writeSync it calls for both stdout and stderr.
 */
function captureGoOutput(): () => string {
  const { fs } = globalThis as unknown as { fs: { writeSync(fd: number, bytes: Uint8Array): number } };
  const decoder = new TextDecoder();
  let output = '';
  fs.writeSync = (_fd, bytes) => {
    if (output.length < 4096) output += decoder.decode(bytes);
    return bytes.length;
  };
  return () => output;
}

/** The module with a maximum added to its one memory (section 5), which Go leaves unbounded. */
function withMemoryMaximum(wasm: Uint8Array, maxPages: number): Uint8Array {
  let offset = 8; // after the magic number and the version
  while (offset < wasm.length) {
    const [size, contentStart] = readLeb128(wasm, offset + 1);
    const contentEnd = contentStart + size;
    if (wasm[offset] === 5) {
      // One memory (1), limits without a maximum (0), then the initial page count.
      if (wasm[contentStart] !== 1 || wasm[contentStart + 1] !== 0) {
        throw new Error(
          'starlark.wasm: unexpected memory section; was it built by scripts/build-starlark.sh?',
        );
      }
      const content = [1, 1, ...wasm.subarray(contentStart + 2, contentEnd), ...leb128(maxPages)];
      const section = Uint8Array.from([5, ...leb128(content.length), ...content]);
      return Buffer.concat([wasm.subarray(0, offset), section, wasm.subarray(contentEnd)]);
    }
    offset = contentEnd;
  }
  throw new Error('starlark.wasm has no memory section');
}

function readLeb128(bytes: Uint8Array, start: number): [value: number, end: number] {
  let value = 0;
  let offset = start;
  for (let shift = 0; ; shift += 7) {
    const byte = bytes[offset++] ?? 0;
    value += (byte & 0x7f) * 2 ** shift;
    if ((byte & 0x80) === 0) return [value, offset];
  }
}

function leb128(value: number): number[] {
  const bytes: number[] = [];
  let rest = value;
  do {
    const low = rest & 0x7f;
    rest = Math.floor(rest / 128);
    bytes.push(rest === 0 ? low : low | 0x80);
  } while (rest !== 0);
  return bytes;
}

/** Serves evaluations; a read is answered by the evaluator with a `read-result` of the same id. */
async function serve(): Promise<void> {
  const port = parentPort;
  if (port === null) throw new Error('worker.ts runs as a worker thread');
  const post = (message: FromWorker): void => port.postMessage(message);
  const evaluate = await startGo(workerData as WorkerSetup, post);

  const pendingReads = new Map<number, (content: string | null) => void>();
  let nextReadId = 0;
  const read = (path: string): Promise<string | null> =>
    new Promise((resolve) => {
      const readId = nextReadId++;
      pendingReads.set(readId, resolve);
      post({ type: 'read', readId, path });
    });

  port.on('message', (message: ToWorker) => {
    switch (message.type) {
      case 'evaluate':
        evaluate(message.request, read, (outcome) => post({ type: 'done', outcome }));
        break;
      case 'read-result':
        pendingReads.get(message.readId)?.(message.content);
        pendingReads.delete(message.readId);
        break;
    }
  });
  post({ type: 'ready' });
}

await serve();
