import { readdirSync } from 'node:fs';
import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { getHeapSpaceStatistics, getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** The process as the metrics show it. */
export interface ProcessReading {
  /** Resident set size, bytes. */
  readonly residentBytes: number;
  /** V8's heap in use now, bytes: garbage included, so it saws up and down with every collection. */
  readonly heapUsedBytes: number;
  /**
   * V8's heap in use right after the last full (mark-compact) collection, bytes: what is really
   * kept alive. Undefined until the first one.
   */
  readonly heapAfterGcBytes: number | undefined;
  /** Memory V8 holds for its heap (used or not), bytes: what the heap costs in RSS. */
  readonly heapTotalBytes: number;
  /** Memory outside V8's heap held by JavaScript objects (Buffers, ArrayBuffers), bytes. */
  readonly externalBytes: number;
  /** What V8 itself has allocated with malloc (compiler zones, tables), bytes: native, outside the heap. */
  readonly v8MallocedBytes: number;
  /**
   * V8's heap in use now by space (`old_space`, `code_space`, …), bytes: after a collection, what
   * grows tells compiled code warming up (code_space) from objects kept (old_space).
   */
  readonly heapSpacesUsedBytes: Readonly<Record<string, number>>;
  /** Full collections seen since start. */
  readonly fullCollections: number;
  /** Handles and requests that keep the event loop alive (process.getActiveResourcesInfo), by type. */
  readonly resources: Readonly<Record<string, number>>;
  /** Open file descriptors (/proc/self/fd); undefined where /proc is not there. */
  readonly openFds: number | undefined;
}

/**
 * Gauges of the Node process itself. Resident memory alone cannot tell a leak from V8 letting its
 * heap grow before it collects; the heap in use after a full collection can. It is recorded after
 * every full collection V8 makes by itself (a `gc` performance entry), at no cost; `collect` makes
 * one now, for measurements (GET /metrics?gc=full, administrators only).
 */
export class ProcessGauges {
  #heapAfterGc: number | undefined;
  #fullCollections = 0;
  #observer: PerformanceObserver | undefined;
  #gc: ((options: V8GcOptions) => void) | undefined;

  /** Starts recording the heap after V8's own full collections. */
  start(): void {
    if (this.#observer !== undefined) return;
    this.#observer = new PerformanceObserver((list) => {
      if (list.getEntries().some(isFullCollection)) this.#recordHeap();
    });
    this.#observer.observe({ type: 'gc' });
  }

  stop(): void {
    this.#observer?.disconnect();
    this.#observer = undefined;
  }

  /**
   * Makes a full, memory-reducing collection now and records the heap after it. Costs tens of
   * milliseconds on a large heap, during which the server answers nothing: for measurements, not
   * for every scrape. Memory-reducing: an ordinary full collection keeps the pages it freed resident
   * for reuse (measured: 190 MiB of them after a burst, with 5 MiB of live heap) until V8's memory
   * reducer gives them back on an idle moment, so the RSS read after it would be the last burst's.
   */
  collect(): void {
    if (this.#gc === undefined) {
      // V8's own `gc` function, made visible once, on first use, instead of for every server
      // (--expose-gc would hand it to every piece of code in the process from the start).
      setFlagsFromString('--expose-gc');
      this.#gc = runInNewContext('gc') as (options: V8GcOptions) => void;
    }
    this.#gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    this.#recordHeap();
  }

  read(): ProcessReading {
    const resources: Record<string, number> = {};
    for (const type of process.getActiveResourcesInfo()) resources[type] = (resources[type] ?? 0) + 1;
    const heap = getHeapStatistics();
    return {
      residentBytes: process.memoryUsage.rss(),
      heapUsedBytes: heap.used_heap_size,
      heapTotalBytes: heap.total_heap_size,
      externalBytes: heap.external_memory,
      v8MallocedBytes: heap.malloced_memory,
      heapSpacesUsedBytes: Object.fromEntries(
        getHeapSpaceStatistics().map((space) => [space.space_name, space.space_used_size]),
      ),
      heapAfterGcBytes: this.#heapAfterGc,
      fullCollections: this.#fullCollections,
      resources,
      openFds: openFds(),
    };
  }

  #recordHeap(): void {
    this.#heapAfterGc = getHeapStatistics().used_heap_size;
    this.#fullCollections++;
  }
}

/** The options of V8's `gc` function (--expose-gc): 'last-resort' also returns freed pages to the system. */
interface V8GcOptions {
  readonly type: 'major' | 'minor';
  readonly execution: 'sync' | 'async';
  readonly flavor?: 'regular' | 'last-resort';
}

function isFullCollection(entry: PerformanceEntry): boolean {
  // Node's typings leave out `detail`, which gc entries carry.
  const detail = Reflect.get(entry, 'detail') as { kind?: number } | null | undefined;
  return detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR;
}

function openFds(): number | undefined {
  try {
    // The listing itself holds one descriptor open while it reads.
    return readdirSync('/proc/self/fd').length - 1;
  } catch {
    return undefined;
  }
}
