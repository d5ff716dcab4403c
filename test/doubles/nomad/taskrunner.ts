/*
 * One task of an allocation, run as Nomad's task runner does (client/allocrunner/taskrunner): events
 * `Received`, `Task Setup`, (`Driver` while pulling), `Started`, `Terminated`, then the restart
 * tracker's `Restarting` / `Not Restarting`, or `Killing`…`Killed` when the allocation is stopped. The
 * container's stdout and stderr are copied, demultiplexed, into alloc/logs/<task>.stdout.0 and
 * .stderr.0 (what the logs API reads) and the container is removed once it exited, as the docker
 * driver does. Every await is guarded: Docker errors become task events, never rejections.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeDockerConfig, UNMODELLED_KEYS } from './driver-config.js';
import { containerOptions, prepareImage, type DriverOptions } from './driver.js';
import { removeContainer, signalContainer, stopContainer } from './docker.js';
import * as events from './events.js';
import { type ExitResult, RestartTracker, StartError } from './events.js';
import { taskEnv } from './env.js';
import { copyContainerLogs } from './logs.js';
import type { Allocation, Task, TaskEvent, TaskGroup, TaskState } from './model.js';
import { errorText, SECOND_NS, within } from './util.js';

/** Nomad's client caps kill_timeout at max_kill_timeout (30 s by default). */
const MAX_KILL_TIMEOUT_NS = 30 * SECOND_NS;
const MAX_EVENTS = 10;

export interface TaskRunnerDeps {
  alloc: Allocation;
  group: TaskGroup;
  task: Task;
  driver: DriverOptions;
  attributes: Record<string, string>;
  allocDir: string;
  labels: Record<string, string>;
  /** Called after every change of the task state (the alloc runner reports it to the server). */
  onChange: () => void;
  unmodelled: (what: string) => void;
}

export class TaskRunner {
  readonly state: TaskState = { State: 'pending', Failed: false, Restarts: 0, Events: [] };
  private readonly tracker: RestartTracker;
  private killed = false;
  private killError = '';
  private injectedFailure: string | undefined;
  private container: string | undefined;
  private running = false;
  private wakeDelay: (() => void) | undefined;

  constructor(private readonly deps: TaskRunnerDeps) {
    this.tracker = new RestartTracker(
      deps.task.RestartPolicy,
      deps.alloc.Job.Type !== 'batch' && deps.alloc.Job.Type !== 'sysbatch',
    );
    this.state.Events.push(events.taskEvent('Received'));
  }

  get name(): string {
    return this.deps.task.Name;
  }

  get killTimeout(): number {
    return this.deps.task.KillTimeout;
  }

  get taskDir(): string {
    return join(this.deps.allocDir, this.deps.task.Name);
  }

  private get sharedDir(): string {
    return join(this.deps.allocDir, 'alloc');
  }

  /** The task's whole life; resolves when it is dead. Never rejects. */
  async run(): Promise<void> {
    try {
      await this.loop();
    } catch (error) {
      this.emit(events.driverFailure(errorText(error)));
      this.emit(events.notRestarting('Error was unrecoverable'));
    }
    this.update('dead');
  }

  private async loop(): Promise<void> {
    if (this.killed) return; // stopped before it began: no prestart work, as in Nomad's run loop
    this.emit(events.setupEvent('Building Task Directory'));
    try {
      await this.buildTaskDir();
    } catch (error) {
      const message = `failed to build task directory for ${JSON.stringify(this.name)}: ${errorText(error)}`;
      this.emit(
        events.taskEvent(
          'Setup Failure',
          { SetupError: message, FailsTask: true },
          { setup_error: message, fails_task: 'true' },
        ),
      );
      return;
    }
    while (!this.killed) {
      let outcome: { killed: boolean; startError?: StartError; exit?: ExitResult };
      try {
        const started = await this.start();
        if (started === undefined) break; // killed before the container existed
        this.update('running', events.taskEvent('Started'));
        if (this.killed) void this.stopRunning();
        const exit = await this.waitExit(started);
        if (this.injectedFailure === undefined) this.emit(events.terminated(exit));
        else this.emit(events.driverFailure(this.injectedFailure));
        outcome =
          this.injectedFailure === undefined
            ? { killed: this.killed, exit }
            : { killed: false, startError: new StartError(this.injectedFailure, false) };
      } catch (error) {
        const startError = error instanceof StartError ? error : new StartError(errorText(error), false);
        this.emit(
          startError.validation
            ? events.validationFailure(startError.message)
            : events.driverFailure(startError.message),
        );
        outcome = { killed: this.killed, startError };
      }
      const decision = this.tracker.decide(outcome);
      if (decision.state === 'killed') {
        this.emit(
          events.taskEvent(
            'Killed',
            { KillError: this.killError },
            this.killError === '' ? {} : { kill_error: this.killError },
          ),
        );
        break;
      }
      if (decision.state === 'terminated') break;
      if (decision.state === 'not-restarting') {
        this.update('dead', events.notRestarting(decision.reason));
        break;
      }
      this.update('pending', events.restarting(decision.delayNs, decision.reason));
      await this.delay(decision.delayNs / 1_000_000);
    }
  }

  /** Stops the task (allocation stopped, or a sibling failed): `event` is `Killing` or `Sibling Task Failed`. */
  async kill(event: TaskEvent | undefined): Promise<void> {
    if (this.killed) return;
    this.killed = true;
    if (event !== undefined && this.state.FinishedAt === undefined && this.state.State !== 'dead')
      this.emit(event);
    this.wakeDelay?.();
    if (this.running) await this.stopRunning();
  }

  /** Test hook: the driver fails under a running task (its container is killed). */
  async failDriver(message: string): Promise<boolean> {
    if (!this.running || this.container === undefined) return false;
    this.injectedFailure = message;
    await this.guard(() => stopContainer(this.deps.driver.docker, this.container ?? '', 0));
    return true;
  }

  /** The node is lost: kill at once, whatever the task does. */
  async abandon(): Promise<void> {
    this.killed = true;
    this.wakeDelay?.();
    if (this.container !== undefined)
      await this.guard(() => stopContainer(this.deps.driver.docker, this.container ?? '', 0));
  }

  private async stopRunning(): Promise<void> {
    const id = this.container;
    if (id === undefined) return;
    const { KillTimeout, KillSignal } = this.deps.task;
    const seconds = Math.min(KillTimeout, MAX_KILL_TIMEOUT_NS) / SECOND_NS;
    const docker = this.deps.driver.docker;
    try {
      if (KillSignal === '') await stopContainer(docker, id, seconds);
      else {
        await signalContainer(docker, id, KillSignal);
        const exited = await within(docker.waitContainer(id), seconds * 1000);
        if (exited === undefined) await stopContainer(docker, id, 0);
      }
    } catch (error) {
      this.killError = errorText(error);
    }
  }

  private async buildTaskDir(): Promise<void> {
    await mkdir(join(this.taskDir, 'local'), { recursive: true, mode: 0o777 });
    await mkdir(join(this.taskDir, 'secrets'), { recursive: true, mode: 0o777 });
    await mkdir(join(this.taskDir, 'tmp'), { recursive: true, mode: 0o777 });
    for (const type of ['stdout', 'stderr']) {
      await writeFile(join(this.sharedDir, 'logs', `${this.name}.${type}.0`), '', { flag: 'a' });
    }
  }

  /** Validates the config, makes the image available, creates and starts the container. */
  private async start(): Promise<string | undefined> {
    const { alloc, group, task, attributes, driver } = this.deps;
    const env = taskEnv(alloc, group, task, attributes);
    const decoded = decodeDockerConfig(task.Config, env, attributes);
    if ('error' in decoded) throw new StartError(decoded.error, false, true);
    const config = decoded.config;
    for (const key of Object.keys(config)) {
      if (UNMODELLED_KEYS.has(key)) this.deps.unmodelled(`task ${task.Name} config.${key} (not modelled)`);
    }
    const imageID = await prepareImage(driver, config, (image) =>
      this.emit(events.driverMessage('Downloading image', { image })),
    );
    if (this.killed) return undefined;
    const options = containerOptions(driver, config, this.setup(env), imageID);
    let id: string;
    try {
      id = (await driver.docker.createContainer(options)).Id;
    } catch (error) {
      throw new StartError(`failed to create container: ${daemonText(error)}`, true);
    }
    this.container = id;
    (alloc.containers[task.Name] ??= []).push(id);
    try {
      await driver.docker.startContainer(id);
    } catch (error) {
      await this.guard(() => removeContainer(driver.docker, id));
      throw new StartError(`Failed to start container ${id}: ${daemonText(error)}`, true);
    }
    this.running = true;
    return id;
  }

  private setup(env: Record<string, string>) {
    const { alloc, task, labels } = this.deps;
    return {
      allocID: alloc.ID,
      taskName: task.Name,
      sharedDir: this.sharedDir,
      taskDir: this.taskDir,
      allocDir: this.deps.allocDir,
      env,
      user: task.User,
      cpu: task.Resources.CPU,
      memoryMB: task.Resources.MemoryMB,
      labels: { ...labels, 'com.hashicorp.nomad.alloc_id': alloc.ID },
    };
  }

  /** Waits for the container to exit while copying its logs; removes it afterwards. */
  private async waitExit(id: string): Promise<ExitResult> {
    const docker = this.deps.driver.docker;
    const tty = this.deps.task.Config.tty === true;
    const logs = copyContainerLogs(docker, id, join(this.sharedDir, 'logs'), this.name, tty);
    let result: ExitResult;
    try {
      const status = await docker.waitContainer(id);
      const code = status.StatusCode;
      const inspected = await docker.inspectContainer(id).catch(() => undefined);
      const oom = inspected?.State.OOMKilled === true;
      const error = oom
        ? 'OOM Killed'
        : code !== 0
          ? `Docker container exited with non-zero exit code: ${code}`
          : '';
      result = { exitCode: code, signal: 0, oomKilled: oom, error };
    } catch (error) {
      result = { exitCode: 0, signal: 0, oomKilled: false, error: errorText(error) };
    }
    await within(logs, 10_000);
    this.running = false;
    await this.guard(() => removeContainer(docker, id));
    return result;
  }

  private delay(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wakeDelay = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private async guard(action: () => Promise<unknown>): Promise<void> {
    try {
      await action();
    } catch {
      // best effort: the container may already be gone
    }
  }

  private emit(event: TaskEvent): void {
    this.append(event);
    this.deps.onChange();
  }

  private append(event: TaskEvent): void {
    if (event.FailsTask) this.state.Failed = true;
    if (event.Type === 'Restarting') {
      this.state.Restarts++;
      this.state.LastRestart = Math.floor(event.Time / 1_000_000);
    }
    this.state.Events.push(event);
    if (this.state.Events.length > MAX_EVENTS) this.state.Events.shift();
  }

  /** taskrunner.UpdateState: the new state (StartedAt / FinishedAt stamped) with an optional event. */
  private update(state: TaskState['State'], event?: TaskEvent): void {
    if (state === 'running' && this.state.State !== 'running') this.state.StartedAt = Date.now();
    if (state === 'dead' && this.state.FinishedAt === undefined) this.state.FinishedAt = Date.now();
    this.state.State = state;
    if (event !== undefined) this.append(event);
    this.deps.onChange();
  }
}

const daemonText = (error: unknown): string =>
  typeof (error as { statusCode?: unknown }).statusCode === 'number'
    ? `Error response from daemon: ${errorText(error)}`
    : errorText(error);
