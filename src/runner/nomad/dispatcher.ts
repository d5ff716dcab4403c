import type { Logger } from 'pino';
import type { RpcClient } from '../client/client.js';
import { isConflict } from '../client/errors.js';
import { toSeconds, type WireDetails, type WireStage } from '../client/wire/index.js';
import { Backoff, sleep, type BackoffOptions } from '../remote/backoff.js';
import { deliver, type DeliveryOptions } from '../remote/deliver.js';
import { keepAlive } from '../remote/keepalive.js';
import type { RunSignals } from '../remote/stage-runner.js';
import { isTerminalAllocation, type NomadAllocation } from './api.js';
import { NomadApiError, type NomadClient } from './client.js';
import { stageJob, stageJobId, TASK, type StageJobSettings } from './job.js';
import { allocationFailure, placementFailure } from './outcome.js';

/** Timings of the dispatcher; tests shorten them. */
export interface NomadTimings {
  heartbeat: number;
  backoff: BackoffOptions;
  /** How long a job may wait for a node before its stage fails (default 5 minutes). */
  placement: number;
  /** How long one blocking query on the job's allocations waits (default 30 s). */
  poll: number;
  /** After a stop, how long the task gets to end before the job is purged anyway (default 60 s). */
  stopGrace: number;
}

export const DEFAULT_NOMAD_TIMINGS: NomadTimings = {
  heartbeat: 10_000,
  backoff: { min: 1_000, max: 30_000 },
  placement: 5 * 60_000,
  poll: 30_000,
  stopGrace: 60_000,
};

export interface NomadDispatcherOptions {
  client: Pick<RpcClient, 'accept' | 'details' | 'updateStage' | 'heartbeat' | 'watch'>;
  nomad: Pick<NomadClient, 'register' | 'allocations' | 'evaluations' | 'stop' | 'logTail' | 'address'>;
  job: StageJobSettings;
  logger: Logger;
  timings?: NomadTimings;
}

type Ending =
  { kind: 'ended'; alloc: NomadAllocation } | { kind: 'unplaced'; reason: string } | { kind: 'stopped' };

/**
 * The nomad runner's work for one offered stage: accept it, submit the Nomad batch job whose task
 * runs it (`svc runner docker --stage ID`), and follow the job until its allocation ends. The task
 * reports the stage itself; this dispatcher only steps in when it could not: the job was refused,
 * found no node in time, or its allocation failed or was lost — then the stage ends `error` with
 * Nomad's reason. Meanwhile it sends the stage's heartbeats (the task may take a while to start)
 * and watches the build: a cancelled build stops the job. Every job is purged at the end.
 */
export class NomadDispatcher {
  readonly #options: NomadDispatcherOptions;
  readonly #timings: NomadTimings;

  constructor(options: NomadDispatcherOptions) {
    this.#options = options;
    this.#timings = options.timings ?? DEFAULT_NOMAD_TIMINGS;
  }

  async run(offered: WireStage, signals: RunSignals): Promise<void> {
    const logger = this.#options.logger.child({ stage: offered.id, pipeline: offered.name });
    const delivery: DeliveryOptions = { backoff: this.#timings.backoff, abandon: signals.abandon, logger };
    const { client, job } = this.#options;
    let details: WireDetails;
    try {
      // Claimed for this runner already when its filter says `claim`.
      if (offered.machine !== job.runner) {
        await deliver('accepting the stage', () => client.accept(offered.id, job.runner), delivery);
      }
      details = await deliver('fetching the stage details', () => client.details(offered.id), delivery);
    } catch (error) {
      if (isConflict(error)) logger.debug('another runner took the stage first');
      else logger.error({ err: error }, 'cannot accept the stage or fetch its details');
      return;
    }
    const stop = new AbortController();
    const stopLoops = keepAlive({
      client,
      stageId: offered.id,
      buildId: details.build.id,
      interval: this.#timings.heartbeat,
      backoff: this.#timings.backoff,
      logger,
      onStop: (reason) => stop.abort(new Error(reason)),
    });
    const stopped = AbortSignal.any([stop.signal, signals.cancel]);
    const jobId = stageJobId(offered.id);
    try {
      const failure = await this.#runJob(jobId, details, stopped, signals.abandon, logger);
      if (failure !== undefined) await this.#failStage(offered.id, failure, delivery, logger);
    } catch (error) {
      logger.error({ err: error }, 'the stage’s Nomad job could not be followed to its end');
    } finally {
      await this.#purge(jobId, logger);
      await stopLoops();
    }
  }

  /** Submits and follows the job; the reason the stage failed when its task could not say so itself. */
  async #runJob(
    jobId: string,
    details: WireDetails,
    stopped: AbortSignal,
    abandon: AbortSignal,
    logger: Logger,
  ): Promise<string | undefined> {
    const { nomad, job } = this.#options;
    try {
      await nomad.register(stageJob(jobId, details, job), abandon);
    } catch (error) {
      const reason = error instanceof NomadApiError ? error.message : (error as Error).message;
      return `Nomad refused the stage's job ${jobId}: ${reason}`;
    }
    logger.info({ job: jobId, nomad: nomad.address }, 'submitted the stage as a Nomad job');
    const ending = await this.#follow(jobId, stopped, abandon, logger);
    if (ending.kind === 'stopped') {
      logger.info({ job: jobId }, `stopping the Nomad job: ${String((stopped.reason as Error).message)}`);
      await this.#stopAndWait(jobId, abandon, logger);
      return undefined;
    }
    if (ending.kind === 'unplaced') return ending.reason;
    const { alloc } = ending;
    logger.info(
      { job: jobId, alloc: alloc.ID, status: alloc.ClientStatus },
      'the stage’s Nomad allocation ended',
    );
    if (alloc.ClientStatus === 'complete' && alloc.TaskStates[TASK]?.Failed !== true) {
      return `the Nomad job ${jobId} ended without reporting the stage (see the task's logs in Nomad)`;
    }
    const stderr = await nomad.logTail(alloc.ID, TASK, 'stderr', 4096, abandon).catch(() => '');
    return allocationFailure(alloc, TASK, stderr);
  }

  /** Waits on the job's allocations (blocking queries) until one ends, the job is stopped, or no node takes it. */
  async #follow(jobId: string, stopped: AbortSignal, abandon: AbortSignal, logger: Logger): Promise<Ending> {
    const { nomad } = this.#options;
    const since = Date.now();
    const backoff = new Backoff(this.#timings.backoff);
    const waiting = AbortSignal.any([stopped, abandon]);
    let index = 0;
    let placed = '';
    while (!waiting.aborted) {
      let allocations: NomadAllocation[];
      try {
        const answer = await nomad.allocations(jobId, { index, ms: this.#timings.poll }, waiting);
        // Nomad's index only grows; one that went back (a new leader, a restore) starts over.
        index = answer.index < index ? 0 : answer.index;
        allocations = answer.value;
        backoff.reset();
      } catch (error) {
        if (waiting.aborted) break;
        logger.warn({ err: error, job: jobId }, 'cannot read the Nomad job’s allocations; trying again');
        await sleep(backoff.next(), waiting);
        continue;
      }
      const newest = [...allocations].sort((a, b) => (b.CreateIndex ?? 0) - (a.CreateIndex ?? 0));
      const current = newest[0];
      if (current !== undefined && current.ID !== placed) {
        placed = current.ID;
        logger.info({ job: jobId, alloc: current.ID, node: current.NodeName }, 'Nomad placed the stage');
      }
      // A lost or failed allocation ends the stage even when Nomad already placed a replacement.
      const broken = newest.find((alloc) => alloc.ClientStatus === 'lost' || alloc.ClientStatus === 'failed');
      if (broken !== undefined) return { kind: 'ended', alloc: broken };
      if (current !== undefined && isTerminalAllocation(current)) return { kind: 'ended', alloc: current };
      if (current === undefined && Date.now() - since >= this.#timings.placement) {
        const evaluations = await nomad.evaluations(jobId, abandon).catch(() => []);
        const why = placementFailure(evaluations) ?? 'no evaluation placed it';
        return {
          kind: 'unplaced',
          reason: `Nomad found no node for the stage's job ${jobId} in ${Math.round(this.#timings.placement / 1000)} s: ${why}`,
        };
      }
    }
    return { kind: 'stopped' };
  }

  /** Stops the job and gives its task `stopGrace` to report the stage killed. */
  async #stopAndWait(jobId: string, abandon: AbortSignal, logger: Logger): Promise<void> {
    await stopJob(
      this.#options.nomad,
      jobId,
      { grace: this.#timings.stopGrace, poll: this.#timings.poll },
      abandon,
      logger,
    );
  }

  /** Ends the stage as `error` with the reason, unless its task reported its end already. */
  async #failStage(
    stageId: number,
    reason: string,
    delivery: DeliveryOptions,
    logger: Logger,
  ): Promise<void> {
    const { client } = this.#options;
    for (let attempt = 1; attempt <= 3; attempt++) {
      const { stage } = await deliver('reading the stage', () => client.details(stageId), delivery);
      if (['success', 'failure', 'error', 'killed', 'skipped', 'declined'].includes(stage.status)) return;
      const now = toSeconds(Date.now());
      const ended = {
        ...stage,
        status: 'error' as const,
        error: reason,
        started: stage.started || now,
        stopped: now,
        steps: [],
      };
      try {
        await deliver('reporting the stage error', () => client.updateStage(ended), delivery);
        logger.warn({ error: reason }, 'the stage failed in Nomad');
        return;
      } catch (error) {
        // The task reported meanwhile: read again.
        if (!isConflict(error)) throw error;
      }
    }
  }

  async #purge(jobId: string, logger: Logger): Promise<void> {
    try {
      await this.#options.nomad.stop(jobId, true);
    } catch (error) {
      logger.warn(
        { err: error, job: jobId },
        'cannot purge the Nomad job; the next start of this runner will',
      );
    }
  }
}

/**
 * Stops a job (its task gets SIGTERM and its kill timeout to cancel the stage's containers and report
 * the stage) and waits up to `grace` for its allocations to end; the job is not purged.
 */
export async function stopJob(
  nomad: Pick<NomadClient, 'stop' | 'allocations'>,
  jobId: string,
  timing: { grace: number; poll: number },
  abandon: AbortSignal,
  logger: Logger,
): Promise<void> {
  try {
    await nomad.stop(jobId, false, abandon);
  } catch (error) {
    logger.warn({ err: error, job: jobId }, 'cannot stop the Nomad job');
    return;
  }
  const until = Date.now() + timing.grace;
  let index = 0;
  while (Date.now() < until && !abandon.aborted) {
    try {
      const wait = { index, ms: Math.max(1_000, Math.min(timing.poll, until - Date.now())) };
      const answer = await nomad.allocations(jobId, wait, abandon);
      index = answer.index;
      if (answer.value.every(isTerminalAllocation)) return;
    } catch {
      return;
    }
  }
}
