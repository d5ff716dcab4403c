/*
 * Many viewers of one log stream, spread over child processes (bench/lib/viewer-process.ts): one
 * Node process cannot read hundreds of streams of a flooding step on its own, and the viewers' CPU
 * must be told apart from the server's.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ViewerCommand, ViewerReport, ViewerSeen } from './viewer-process.js';

const ENTRY = fileURLToPath(new URL('./viewer-process.ts', import.meta.url));

/** What all the viewers saw once their streams ended. */
export interface CrowdSeen {
  viewers: ViewerSeen[];
  /** Print → arrival (ms) of the timed lines printed after their viewer subscribed, all viewers. */
  latencies: number[];
  /** The first and the last timed line any viewer got: [line, printed (epoch ms)]. */
  first: [number, number] | undefined;
  last: [number, number] | undefined;
  /** CPU time the viewers' processes used from their `opened` on, milliseconds in all. */
  cpu: number;
}

type Done = Extract<ViewerReport, { type: 'done' }>;

/** Spreads `total` as evenly as possible over `parts`. */
function spread(total: number, parts: number): number[] {
  return Array.from({ length: parts }, (_, i) => Math.floor(total / parts) + (i < total % parts ? 1 : 0));
}

/** `viewers` viewers of the stream at `path` on the server at `port`, in `processes` child processes. */
export class ViewerCrowd {
  readonly #children: ChildProcess[];
  /** Resolves once every viewer is subscribed, with the time the last one was (epoch ms). */
  readonly opened: Promise<number>;
  /** Resolves once every stream ended (or was closed) and every process reported. */
  readonly done: Promise<CrowdSeen>;

  constructor(port: number, path: string, token: string, shape: { viewers: number; processes: number }) {
    const counts = spread(shape.viewers, shape.processes).filter((n) => n > 0);
    // The same Node and loader flags as this process (tsx), so the viewers run the bench's sources too.
    this.#children = counts.map((n) =>
      fork(ENTRY, [String(port), path, token, String(n)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }),
    );
    const reports = this.#children.map((child) => listen(child));
    this.opened = Promise.all(reports.map((r) => r.opened)).then((times) => Math.max(...times));
    this.done = Promise.all(reports.map((r) => r.done)).then(merge);
    this.opened.catch(() => undefined);
    this.done.catch(() => undefined);
  }

  /** Closes the streams still open; `done` then resolves with what they saw. */
  close(): void {
    const command: ViewerCommand = { type: 'close' };
    // A process that is finishing may have closed its channel already: nothing is left to close.
    for (const child of this.#children) if (child.connected) child.send(command, () => undefined);
  }

  /** Ends the processes that are still running (after `close` or a failure). */
  kill(): void {
    for (const child of this.#children) if (child.exitCode === null) child.kill('SIGTERM');
  }
}

function merge(all: Done[]): CrowdSeen {
  const firsts = all.flatMap((r) => (r.first ? [r.first] : [])).sort((a, b) => a[1] - b[1]);
  const lasts = all.flatMap((r) => (r.last ? [r.last] : [])).sort((a, b) => a[1] - b[1]);
  return {
    viewers: all.flatMap((r) => r.viewers),
    latencies: all.flatMap((r) => r.latencies),
    first: firsts[0],
    last: lasts.at(-1),
    cpu: all.reduce((sum, r) => sum + r.cpu, 0),
  };
}

/** One process's `opened` and `done` reports as promises; its going away before them rejects. */
function listen(child: ChildProcess): { opened: Promise<number>; done: Promise<Done> } {
  const opened = Promise.withResolvers<number>();
  const done = Promise.withResolvers<Done>();
  child.on('message', (report: ViewerReport) => {
    switch (report.type) {
      case 'opened':
        opened.resolve(report.at);
        return;
      case 'failed':
        opened.reject(new Error(`a viewer could not subscribe: ${report.error}`));
        return;
      case 'done':
        done.resolve(report);
        return;
    }
  });
  // Its channel closes after the last message was heard; its exit may be noticed before.
  child.once('disconnect', () => {
    const error = new Error(`a viewers' process went away (exit code ${child.exitCode}) before it reported`);
    opened.reject(error);
    done.reject(error);
  });
  return { opened: opened.promise, done: done.promise };
}
