import type { Logger } from 'pino';
import type { ExecStep } from '../../core/engine.js';
import type { LogLine } from '../../core/log.js';
import type { RpcClient } from '../client/client.js';
import { isConflict, isRetriable, RpcError } from '../client/errors.js';
import { toSeconds, type WireStep } from '../client/wire/index.js';
import type { StageReporter, StageResult, StepResult } from '../reporter.js';
import type { BackoffOptions } from './backoff.js';
import { AbandonedError, deliver, type DeliveryOptions } from './deliver.js';
import { LogStream, type StoredBatches } from './log-stream.js';
import { Outbox } from './outbox.js';

/** How the reporter batches log lines. */
export interface LogBatching {
  interval: number;
  maxLines: number;
  maxBytes: number;
}

/** What the remote reporter needs. */
export interface RemoteReporterOptions {
  client: Pick<RpcClient, 'updateStep' | 'batch' | 'upload' | 'uploadAfter'>;
  /** The stage's steps as the server created them, by name. */
  steps: ReadonlyMap<string, WireStep>;
  delivery: DeliveryOptions;
  batching: LogBatching;
  backoff: BackoffOptions;
  logger: Logger;
  /** The server refused an update with 409: the stage is no longer this runner's (stop it). */
  onLost(reason: string): void;
}

/**
 * Reports a running stage to the server without ever holding up its steps: step updates and final
 * logs go through an ordered outbox (a step's "running" before its log, its log before its end),
 * lines through one LogStream per step. Everything is retried until the server acknowledges it;
 * `drain` resolves once all of it is delivered. `steps` always holds the latest stored versions,
 * for the stage's final report.
 */
export class RemoteReporter implements StageReporter {
  readonly #options: RemoteReporterOptions;
  readonly #steps: Map<string, WireStep>;
  readonly #streams = new Map<string, LogStream>();
  readonly #outbox: Outbox;
  #lost = false;
  readonly #unstored: string[] = [];

  constructor(options: RemoteReporterOptions) {
    this.#options = options;
    this.#steps = new Map(options.steps);
    this.#outbox = new Outbox(options.logger);
  }

  /** The steps with what the server last stored of them, in number order. */
  get steps(): WireStep[] {
    return [...this.#steps.values()].sort((a, b) => a.number - b.number);
  }

  stepStarted(step: ExecStep, started: number): void {
    const stored = this.#steps.get(step.name);
    if (stored === undefined) return;
    this.#streamOf(step.name, stored.id).start();
    this.#outbox.push(`reporting step "${step.name}" as running`, () =>
      this.#put(step.name, { status: 'running', started: toSeconds(started) }),
    );
  }

  stepLine(step: ExecStep, line: LogLine): void {
    const stored = this.#steps.get(step.name);
    if (stored !== undefined) this.#streamOf(step.name, stored.id).add(line);
  }

  stepRoom(step: ExecStep): Promise<void> | undefined {
    return this.#lost ? undefined : this.#streams.get(step.name)?.room();
  }

  stepFinished(step: ExecStep, result: StepResult): void {
    const stream = this.#streams.get(step.name);
    this.#outbox.push(`reporting the end of step "${step.name}"`, async () => {
      const unstored =
        stream === undefined || this.#lost ? undefined : await this.#finishLog(step.name, stream);
      const outcome = unstored === undefined ? { status: result.status, error: result.error } : unstored;
      await this.#put(step.name, {
        ...outcome,
        errignore: result.errIgnore && unstored === undefined,
        exit_code: result.exitCode,
        attempts: result.attempts,
        started: toSeconds(result.started),
        stopped: toSeconds(result.stopped),
      });
    });
  }

  /**
   * Why the stage cannot be reported a success although its steps may have passed: the logs the
   * server refused to store. A step whose log is incomplete never counts as done well (issue 31).
   */
  get unstoredLogs(): readonly string[] {
    return this.#unstored;
  }

  /** Delivers a step's log; the step's outcome as `error` when the server refused it for good. */
  async #finishLog(name: string, stream: LogStream): Promise<{ status: 'error'; error: string } | undefined> {
    try {
      await stream.finish();
      return undefined;
    } catch (error) {
      // The runner is quitting: nothing more reaches the server, the stage's end included.
      if (error instanceof AbandonedError) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      const message = `the log of step "${name}" could not be stored: ${reason}`;
      this.#options.logger.error({ err: error, step: name }, message);
      this.#unstored.push(message);
      return { status: 'error', error: message };
    }
  }

  stageFinished(_result: StageResult): void {
    // The stage runner reports the stage itself, once `drain` has delivered everything of its steps.
  }

  /** Resolves when every update and log so far is acknowledged (or given up). */
  drain(): Promise<void> {
    return this.#outbox.drain();
  }

  #streamOf(name: string, stepId: number): LogStream {
    let stream = this.#streams.get(name);
    if (stream === undefined) {
      const { client, delivery, batching, backoff, logger } = this.#options;
      stream = new LogStream({
        ...batching,
        backoff,
        logger: logger.child({ step: name }),
        send: (batch, lines) => client.batch(stepId, batch, lines, delivery.abandon),
        upload: (stored, rest, all) => this.#upload(name, stepId, stored, rest, all),
      });
      this.#streams.set(name, stream);
    }
    return stream;
  }

  /**
   * Delivers a finished step's log: only the lines after its acknowledged batches when there are
   * some (the server completes the log from them), every line when there are none or the server
   * cannot use them.
   */
  async #upload(
    name: string,
    stepId: number,
    stored: StoredBatches,
    rest: readonly LogLine[],
    all: readonly LogLine[],
  ): Promise<void> {
    const { client, delivery, logger } = this.#options;
    const what = `uploading the log of step "${name}"`;
    if (stored.batches > 0) {
      try {
        await deliver(
          what,
          () => client.uploadAfter(stepId, stored.batches, rest, delivery.abandon),
          delivery,
        );
        return;
      } catch (error) {
        if (!(error instanceof RpcError) || isRetriable(error)) throw error;
        logger.debug(
          { err: error, step: name },
          'the server cannot complete the log from its batches; uploading every line',
        );
      }
    }
    await deliver(what, () => client.upload(stepId, all, delivery.abandon), delivery);
  }

  async #put(name: string, fields: Partial<WireStep>): Promise<void> {
    const stored = this.#steps.get(name);
    if (stored === undefined || this.#lost) return;
    try {
      const updated = await deliver(
        `reporting step "${name}"`,
        () => this.#options.client.updateStep({ ...stored, ...fields }, this.#options.delivery.abandon),
        this.#options.delivery,
      );
      this.#steps.set(name, updated);
    } catch (error) {
      if (!isConflict(error)) throw error;
      this.#lost = true;
      this.#options.onLost(error instanceof Error ? error.message : String(error));
    }
  }
}
