import type { Logger } from 'pino';
import type { StageExecutor } from '../executor.js';
import type { CacheTransport } from '../cache/transport.js';
import type { ArtifactTransport } from '../artifacts/transport.js';
import type { RpcClient } from '../client/client.js';
import { isConflict } from '../client/errors.js';
import { toSeconds, type WireDetails, type WireStage, type WireStep } from '../client/wire/index.js';
import type { BackoffOptions } from './backoff.js';
import { deliver, type DeliveryOptions } from './deliver.js';
import { keepAlive } from './keepalive.js';
import { prepareStage, type PrepareSettings } from './prepare.js';
import { finalReport } from './final-report.js';
import { RemoteReporter, type LogBatching } from './reporter.js';
import type { StageBoard } from './stage-board.js';

/** Timings of a remote stage; tests shorten them. */
export interface RemoteTimings {
  /** Between heartbeats (default 10 s). */
  heartbeat: number;
  batching: LogBatching;
  backoff: BackoffOptions;
}

/**
 * The default timings: a heartbeat every 10 s; a line waits at most 100 ms before it is sent (live
 * logs within a glance), and while a batch is on its way the lines that come meanwhile wait to go
 * together, up to 10,000 lines or 1 MiB a batch (a step printing fast sends few large requests);
 * retries 1 s → 30 s.
 */
export const DEFAULT_TIMINGS: RemoteTimings = {
  heartbeat: 10_000,
  batching: { interval: 100, maxLines: 10_000, maxBytes: 1024 * 1024 },
  backoff: { min: 1_000, max: 30_000 },
};

/** What running stages for a server needs. */
export interface RemoteStageRunnerOptions {
  client: Pick<
    RpcClient,
    | 'accept'
    | 'details'
    | 'updateStage'
    | 'updateStep'
    | 'batch'
    | 'upload'
    | 'uploadAfter'
    | 'heartbeat'
    | 'watch'
  >;
  /** A fresh executor per stage: SVC_RUNNER_MAX_PROCS limits the steps of one stage. */
  executor: () => StageExecutor;
  settings: PrepareSettings;
  logger: Logger;
  timings?: RemoteTimings;
  /** Where the dashboard reads the stages from (SVC_UI_*). */
  board?: StageBoard;
  /** The server's caches for a stage (steps' `cache:`); without it steps say they have none. */
  caches?: (stageId: number) => CacheTransport;
  /** The server's artifacts for a stage (`artifacts:`); without it steps say they have none. */
  artifacts?: (stageId: number) => ArtifactTransport;
}

/** Signals of one stage run: `cancel` stops the stage (killed), `abandon` gives up reporting it. */
export interface RunSignals {
  cancel: AbortSignal;
  abandon: AbortSignal;
}

/**
 * Runs one stage the server offered, start to end, as Drone's runners do:
 * 1. accept it unless the server claimed it for this runner already (another runner may win: then
 *    nothing happens), fetch its details;
 * 2. while it runs: heartbeats, and a watch that cancels it when the build is cancelled;
 * 3. prepare it (limits, lint, pick the pipeline, compile); a problem ends the stage as `error`
 *    with the message, before any step;
 * 4. report it running with its steps (the server creates them), run it through the executor
 *    with a RemoteReporter (step updates, numbered log batches, final logs), then report its end.
 * Every report is retried until the server acknowledges it (a lost server is waited for); a 409
 * means the stage is no longer this runner's, and it is stopped.
 */
export class RemoteStageRunner {
  readonly #options: RemoteStageRunnerOptions;
  readonly #timings: RemoteTimings;

  constructor(options: RemoteStageRunnerOptions) {
    this.#options = options;
    this.#timings = options.timings ?? DEFAULT_TIMINGS;
  }

  /** Runs the offered stage; resolves when it is over and reported (never rejects for the stage's outcome). */
  async run(offered: WireStage, signals: RunSignals): Promise<void> {
    const logger = this.#options.logger.child({ stage: offered.id, pipeline: offered.name });
    const delivery: DeliveryOptions = { backoff: this.#timings.backoff, abandon: signals.abandon, logger };
    const { client, settings } = this.#options;
    // A runner that claims as it asks (`claim` in its filter) is offered stages already its own.
    if (offered.machine !== settings.machine) {
      try {
        await deliver('accepting the stage', () => client.accept(offered.id, settings.machine), delivery);
      } catch (error) {
        if (isConflict(error)) logger.debug('another runner took the stage first');
        else logger.error({ err: error }, 'cannot accept the stage');
        return;
      }
    }
    logger.info('stage accepted');
    await this.#runTaken(offered.id, signals, delivery, logger);
  }

  /**
   * Runs a stage that another process accepted (`svc runner docker --stage ID`, started by the nomad
   * runner in a Nomad job): accepted but not started yet. Resolves true when the stage was run and
   * its end reported, false when it could not be run (the reason is logged).
   */
  async runAccepted(stageId: number, signals: RunSignals): Promise<boolean> {
    const logger = this.#options.logger.child({ stage: stageId });
    const delivery: DeliveryOptions = { backoff: this.#timings.backoff, abandon: signals.abandon, logger };
    return await this.#runTaken(stageId, signals, delivery, logger, (stage) =>
      stage.machine === ''
        ? 'it was not accepted by any runner'
        : stage.status !== 'pending'
          ? `it is already ${stage.status}`
          : undefined,
    );
  }

  /** Fetches the details of a stage this runner holds and runs it; false when it was not run. */
  async #runTaken(
    stageId: number,
    signals: RunSignals,
    delivery: DeliveryOptions,
    logger: Logger,
    refuse: (stage: WireStage) => string | undefined = () => undefined,
  ): Promise<boolean> {
    const { client } = this.#options;
    let details: WireDetails;
    try {
      details = await deliver('fetching the stage details', () => client.details(stageId), delivery);
    } catch (error) {
      logger.error(
        { err: error },
        'cannot fetch the stage details; the server will fail the stage when its heartbeats stop',
      );
      return false;
    }
    const stage = details.stage;
    const refused = refuse(stage);
    if (refused !== undefined) {
      logger.error(`stage ${stage.id} cannot be run: ${refused}`);
      return false;
    }
    const cancel = new AbortController();
    // Once the stage is over, the build may end too: a watch saying so is no reason to stop anything.
    const over = { value: false };
    const stopLoops = keepAlive({
      client,
      stageId: stage.id,
      buildId: details.build.id,
      interval: this.#timings.heartbeat,
      backoff: this.#timings.backoff,
      logger,
      onStop: (reason) => {
        if (over.value) return;
        logger.info(`stopping the stage: ${reason}`);
        cancel.abort(new Error(reason));
      },
    });
    const onCancel = (): void => cancel.abort(signals.cancel.reason);
    if (signals.cancel.aborted) onCancel();
    else signals.cancel.addEventListener('abort', onCancel, { once: true });
    const board = this.#options.board;
    board?.started({
      id: stage.id,
      repo: details.repository.slug,
      build: details.build.number,
      stage: stage.name,
      started: Date.now(),
    });
    let status = 'error';
    try {
      status = await this.#execute(stage, details, cancel.signal, delivery, logger, over);
      return true;
    } catch (error) {
      logger.error({ err: error }, 'the stage could not be run or reported to the end');
      return false;
    } finally {
      board?.finished(stage.id, status, Date.now());
      signals.cancel.removeEventListener('abort', onCancel);
      await stopLoops();
    }
  }

  async #execute(
    stage: WireStage,
    details: WireDetails,
    cancel: AbortSignal,
    delivery: DeliveryOptions,
    logger: Logger,
    over: { value: boolean },
  ): Promise<string> {
    const { client } = this.#options;
    const now = Date.now();
    const prepared = await prepareStage(details, this.#options.settings, now);
    if (!prepared.ok) {
      logger.warn({ error: prepared.error }, 'the stage cannot run');
      over.value = true;
      const at = toSeconds(Date.now());
      const ended = {
        ...stage,
        status: 'error' as const,
        error: prepared.error,
        started: at,
        stopped: at,
        steps: [],
      };
      await deliver('reporting the stage error', () => client.updateStage(ended), delivery);
      return 'error';
    }
    for (const warning of prepared.warnings) logger.warn(`pipeline "${stage.name}": ${warning}`);
    const planned = prepared.spec.steps.map((step, i): WireStep => ({
      id: 0,
      step_id: stage.id,
      number: i + 1,
      name: step.name,
      status: 'pending',
      error: '',
      errignore: step.errPolicy === 'ignore',
      exit_code: 0,
      started: 0,
      stopped: 0,
      version: 0,
      depends_on: step.dependsOn,
      image: step.image,
      detached: step.detach,
    }));
    const starting = { ...stage, status: 'running' as const, started: toSeconds(now), steps: planned };
    const running = await deliver(
      'reporting the stage running',
      () => client.updateStage(starting),
      delivery,
    );
    const lost = new AbortController();
    const reporter = new RemoteReporter({
      client,
      steps: new Map(running.steps.map((step) => [step.name, step])),
      delivery,
      batching: this.#timings.batching,
      backoff: this.#timings.backoff,
      logger,
      onLost: (reason) => {
        logger.warn(`the server refused an update (${reason}); stopping the stage`);
        lost.abort(new Error(reason));
      },
    });
    const result = await this.#options.executor().execute(prepared.spec, {
      reporter,
      signal: AbortSignal.any([cancel, lost.signal]),
      timeout: details.repository.timeout * 60_000,
      ...(this.#options.caches === undefined ? {} : { caches: this.#options.caches(running.id) }),
      ...(this.#options.artifacts === undefined ? {} : { artifacts: this.#options.artifacts(running.id) }),
    });
    over.value = true;
    await reporter.drain();
    if (lost.signal.aborted) return result.status;
    const final = finalReport(running, reporter.steps, result, reporter.unstoredLogs);
    try {
      await deliver('reporting the end of the stage', () => client.updateStage(final), delivery);
      logger.info({ status: result.status }, 'stage finished');
    } catch (error) {
      if (!isConflict(error)) throw error;
      logger.warn({ err: error }, 'the server no longer had the stage; its end was not recorded');
    }
    return result.status;
  }
}
