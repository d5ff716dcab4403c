/*
 * One allocation on the double's client (client/allocrunner): builds the alloc directory (alloc/logs,
 * alloc/data, alloc/tmp and a directory per task), runs every task of the group at once, reports the
 * task states to the server after each change with the ClientStatus/ClientDescription of
 * `getClientStatus`, kills the other tasks when one fails (`Sibling Task Failed`), and tells the server
 * when the allocation is terminal. Stop and fail requests are handled one after another.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { DriverOptions } from './driver.js';
import * as events from './events.js';
import type { Allocation, ClientStatus, TaskState } from './model.js';
import type { NomadState } from './state.js';
import { TaskRunner } from './taskrunner.js';
import { nowNs } from './util.js';

export interface AllocRunnerDeps {
  state: NomadState;
  driver: DriverOptions;
  attributes: Record<string, string>;
  /** Where this allocation's directory goes (`<dataDir>/<alloc id>`). */
  dataDir: string;
  labels: Record<string, string>;
  unmodelled: (what: string) => void;
  onTerminal: (alloc: Allocation) => void;
}

/** client/allocrunner getClientStatus. */
export function clientStatus(states: Record<string, TaskState>): [ClientStatus, string] | undefined {
  const all = Object.values(states);
  if (all.some((s) => s.State === 'dead' && s.Failed)) return ['failed', 'Failed tasks'];
  if (all.some((s) => s.State === 'running')) return ['running', 'Tasks are running'];
  if (all.some((s) => s.State === 'pending')) return ['pending', 'No tasks have started'];
  if (all.some((s) => s.State === 'dead')) return ['complete', 'All tasks have completed'];
  return undefined;
}

export class AllocRunner {
  private tasks: TaskRunner[] = [];
  private control: Promise<unknown> = Promise.resolve();
  private detached = false;
  private siblingsKilled = false;
  private finished: Promise<void> = Promise.resolve();

  constructor(
    readonly alloc: Allocation,
    private readonly deps: AllocRunnerDeps,
  ) {}

  get allocDir(): string {
    return join(this.deps.dataDir, this.alloc.ID);
  }

  /**
   * Starts every task; the returned promise settles when all of them are dead. The task runners exist
   * from here on, so a stop that arrives while the directories are being made still reaches them.
   */
  start(): Promise<void> {
    const group = this.alloc.Job.TaskGroups.find((g) => g.Name === this.alloc.TaskGroup);
    this.tasks = (group?.Tasks ?? []).flatMap((task) =>
      group === undefined
        ? []
        : new TaskRunner({
            alloc: this.alloc,
            group,
            task,
            driver: this.deps.driver,
            attributes: this.deps.attributes,
            allocDir: this.allocDir,
            labels: this.deps.labels,
            onChange: () => this.changed(),
            unmodelled: this.deps.unmodelled,
          }),
    );
    this.finished = this.runAll();
    return this.finished;
  }

  /** Never rejects: it runs detached from any request. */
  private async runAll(): Promise<void> {
    try {
      for (const sub of ['logs', 'data', 'tmp']) {
        // A directory that cannot be made fails the tasks when they set up, with an event.
        await mkdir(join(this.allocDir, 'alloc', sub), { recursive: true, mode: 0o777 }).catch(
          () => undefined,
        );
      }
      this.report();
      await Promise.all(this.tasks.map((task) => task.run()));
      this.report();
      if (!this.detached) this.deps.onTerminal(this.alloc);
    } catch (error) {
      process.emitWarning(
        `Nomad double: allocation ${this.alloc.ID}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  /** Kills every task with `Killing` (the allocation's desired status is now stop). */
  stop(): Promise<void> {
    return this.serial(async () => {
      await Promise.all(
        this.tasks.map((task) => task.kill(events.killing(Math.min(task.killTimeout, 30e9)))),
      );
      await this.finished;
    });
  }

  /**
   * The node was lost (or the double closes): kill everything at once and report nothing more (the
   * server decides the status). Not queued behind a stop that may be waiting for a kill timeout.
   */
  async lose(): Promise<void> {
    this.detached = true;
    await Promise.all(this.tasks.map((task) => task.abandon()));
    await this.finished;
  }

  /** Test hook: a driver failure under the first running task. */
  fail(message: string): Promise<boolean> {
    return this.serial(async () => {
      for (const task of this.tasks) if (await task.failDriver(message)) return true;
      return false;
    });
  }

  /** Settles when every task is dead. */
  wait(): Promise<void> {
    return this.finished;
  }

  private serial<T>(action: () => Promise<T>): Promise<T> {
    const next = this.control.then(action, action);
    this.control = next.catch(() => undefined);
    return next;
  }

  private changed(): void {
    const failed = this.tasks.find((task) => task.state.State === 'dead' && task.state.Failed);
    if (failed !== undefined && !this.siblingsKilled) {
      this.siblingsKilled = true;
      for (const task of this.tasks) {
        if (task !== failed) void task.kill(events.siblingFailed(failed.name)).catch(() => undefined);
      }
    }
    this.report();
  }

  /** The client's alloc update: task states and the client status derived from them. */
  private report(): void {
    if (this.detached || this.tasks.length === 0) return;
    const states = Object.fromEntries(this.tasks.map((task) => [task.name, structuredClone(task.state)]));
    const status = clientStatus(states);
    this.deps.state.commit(['allocs'], (index) => {
      this.alloc.TaskStates = states;
      if (status !== undefined) [this.alloc.ClientStatus, this.alloc.ClientDescription] = status;
      this.alloc.ModifyIndex = index;
      this.alloc.ModifyTime = nowNs();
    });
  }
}
