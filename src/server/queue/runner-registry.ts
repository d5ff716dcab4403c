import type { Logger } from 'pino';
import type { RunnerRegistration, RunnerStore } from '../../core/runner.js';
import type { WireFilter } from '../../runner/client/wire/index.js';

/** What the registry writes to and how often. */
export interface RunnerRegistryOptions {
  runners: Pick<RunnerStore, 'register'>;
  logger: Logger;
  /**
   * Milliseconds between two writes of a runner's last contact while what it says stays the same:
   * a runner polls once per capacity slot every long-poll, and "last contact" needs no better
   * precision than this (GET /api/runners, and the "no runner polled lately" reason).
   */
  interval?: number;
  now?: () => number;
}

/**
 * The runners as they poll: each request of an svc runner (whose filter says who asks) registers
 * the runner in the `runners` table — at once when it is new to this server or what it says
 * changed (labels, platform, capacity, …), else at most once per `interval`. Polls of anonymous
 * (Drone) runners register nothing. A failed write is logged and never fails the poll.
 */
export class RunnerRegistry {
  readonly #runners: Pick<RunnerStore, 'register'>;
  readonly #logger: Logger;
  readonly #interval: number;
  readonly #now: () => number;
  /** Per runner name: what it said when last written, and when. */
  readonly #written = new Map<string, { said: string; at: number }>();

  constructor(options: RunnerRegistryOptions) {
    this.#runners = options.runners;
    this.#logger = options.logger;
    this.#interval = options.interval ?? 15_000;
    this.#now = options.now ?? Date.now;
  }

  /** A runner asked for work with `filter`. Resolves when the registration (if any) is written. */
  async seen(filter: WireFilter): Promise<void> {
    const registration = registrationOf(filter, this.#now());
    if (registration === undefined) return;
    const { lastSeen, ...rest } = registration;
    const said = JSON.stringify(rest);
    const last = this.#written.get(registration.name);
    if (last !== undefined && last.said === said && lastSeen - last.at < this.#interval) return;
    this.#written.set(registration.name, { said, at: lastSeen });
    try {
      await this.#runners.register(registration);
    } catch (error) {
      // Written again at the next poll.
      this.#written.delete(registration.name);
      this.#logger.warn({ err: error, runner: registration.name }, 'cannot register the runner');
    }
  }
}

/** The runner's registration from its filter; undefined for a runner that does not say who it is. */
export function registrationOf(filter: WireFilter, now: number): RunnerRegistration | undefined {
  const { runner } = filter;
  if (runner === undefined) return undefined;
  return {
    name: runner.name,
    kind: runner.kind,
    type: filter.type || 'docker',
    labels: filter.labels,
    capacity: runner.capacity,
    maxProcs: runner.max_procs,
    os: filter.os,
    arch: filter.arch,
    version: runner.version,
    lastSeen: now,
  };
}
