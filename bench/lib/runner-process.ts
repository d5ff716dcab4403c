/*
 * The simulated runners in a process of their own, as a real deployment has them: the server's
 * thread then serves the protocol alone, instead of also running 100 HTTP clients. All the
 * runners share that one process (bench/lib/fleet-process.ts).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { FleetCommand, FleetReport } from './fleet-process.js';
import { FleetProgress } from './fleet-progress.js';
import type { Fleet } from './runner-fleet.js';

const ENTRY = fileURLToPath(new URL('./fleet-process.ts', import.meta.url));

/** `count` runners polling `url` from one child process (started at once, polling from `start`). */
export class RunnerProcess implements Fleet {
  readonly #child: ChildProcess;
  readonly #progress = new FleetProgress();
  readonly #exited: Promise<void>;
  #stopped: Promise<void> | undefined;
  accepted = 0;
  done = 0;
  failures = 0;
  errors: string[] = [];
  /** CPU time the runners' process used in all, milliseconds (known once stopped). */
  cpu = 0;

  constructor(url: string, secret: string, count: number) {
    // The same Node and loader flags as this process (tsx), so the runners run svc's sources too.
    this.#child = fork(ENTRY, [url, secret, String(count)], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.#exited = new Promise((resolve) => this.#child.once('exit', () => resolve()));
    this.#child.on('message', (report: FleetReport) => this.#heard(report));
  }

  start(): void {
    this.#command({ type: 'start' });
  }

  /** Stops the runners (they finish the stages under way) and waits for their process to end. */
  stop(): Promise<void> {
    this.#stopped ??= (async () => {
      this.#command({ type: 'stop' });
      await this.#exited;
    })();
    return this.#stopped;
  }

  whenAccepted(stageId: number): Promise<number> {
    return this.#progress.when(stageId, 'accepted');
  }

  whenDone(stageId: number): Promise<number> {
    return this.#progress.when(stageId, 'done');
  }

  last(): { accepted: number; done: number } {
    return this.#progress.last();
  }

  #command(command: FleetCommand): void {
    if (this.#child.connected) this.#child.send(command);
  }

  #heard(report: FleetReport): void {
    switch (report.type) {
      case 'milestones':
        for (const [stageId, what, epoch] of report.milestones) {
          // Both processes read the same clocks: epoch milliseconds become this process's timeline.
          this.#progress.mark(stageId, what, epoch - performance.timeOrigin);
          if (what === 'accepted') this.accepted++;
          if (what === 'done') this.done++;
        }
        return;
      case 'stopped':
        ({ failures: this.failures, errors: this.errors, cpu: this.cpu } = report);
        return;
    }
  }
}
