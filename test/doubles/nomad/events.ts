/*
 * Task events as Nomad's client records them (structs.TaskEvent): every field present with its zero
 * value, the `Details` map the setters fill (`exit_code`, `driver_error`, `restart_reason`, …) and the
 * `DisplayMessage` of `PopulateEventDisplayMessage`. Also the restart tracker of
 * client/allocrunner/taskrunner/restarts, which decides what follows a task's exit.
 */
import type { RestartPolicy, TaskEvent } from './model.js';
import { formatGoDuration, nowNs } from './util.js';

export function taskEvent(
  type: string,
  fields: Partial<TaskEvent> = {},
  details: Record<string, string> = {},
): TaskEvent {
  const event: TaskEvent = {
    Type: type,
    Time: nowNs(),
    Message: '',
    DisplayMessage: '',
    Details: details,
    FailsTask: false,
    RestartReason: '',
    SetupError: '',
    DriverError: '',
    ExitCode: 0,
    Signal: 0,
    KillTimeout: 0,
    KillError: '',
    KillReason: '',
    StartDelay: 0,
    DownloadError: '',
    ValidationError: '',
    DiskLimit: 0,
    FailedSibling: '',
    VaultError: '',
    TaskSignalReason: '',
    TaskSignal: '',
    DriverMessage: '',
    GenericSource: '',
    ...fields,
  };
  if (event.DisplayMessage === '') event.DisplayMessage = displayMessage(event);
  return event;
}

function displayMessage(e: TaskEvent): string {
  switch (e.Type) {
    case 'Task Setup':
      return e.Message;
    case 'Started':
      return 'Task started by client';
    case 'Received':
      return 'Task received by client';
    case 'Failed Validation':
      return e.ValidationError || 'Validation of task failed';
    case 'Setup Failure':
      return e.SetupError || 'Task setup failed';
    case 'Driver Failure':
      return e.DriverError || 'Failed to start task';
    case 'Killing':
      if (e.KillReason !== '') return e.KillReason;
      return e.KillTimeout !== 0
        ? `Sent interrupt. Waiting ${formatGoDuration(e.KillTimeout)} before force killing`
        : 'Sent interrupt';
    case 'Killed':
      return e.KillError || 'Task successfully killed';
    case 'Terminated': {
      const parts = [`Exit Code: ${e.ExitCode}`];
      if (e.Signal !== 0) parts.push(`Signal: ${e.Signal}`);
      if (e.Message !== '') parts.push(`Exit Message: ${JSON.stringify(e.Message)}`);
      return parts.join(', ');
    }
    case 'Restarting': {
      const within = `Task restarting in ${formatGoDuration(e.StartDelay)}`;
      return e.RestartReason !== '' && e.RestartReason !== WITHIN_POLICY
        ? `${e.RestartReason} - ${within}`
        : within;
    }
    case 'Not Restarting':
      return e.RestartReason || 'Task exceeded restart policy';
    case 'Sibling Task Failed':
      return e.FailedSibling !== ''
        ? `Task's sibling ${JSON.stringify(e.FailedSibling)} failed`
        : "Task's sibling failed";
    case 'Driver':
      return e.DriverMessage;
    default:
      return e.Message;
  }
}

export const setupEvent = (message: string) => taskEvent('Task Setup', { Message: message }, { message });

export const driverFailure = (error: string) =>
  taskEvent('Driver Failure', { DriverError: error }, { driver_error: error });

export const validationFailure = (error: string) =>
  taskEvent('Failed Validation', { ValidationError: error }, { validation_error: error });

export const driverMessage = (message: string, details: Record<string, string>) =>
  taskEvent('Driver', { DriverMessage: message }, { ...details });

export function terminated(result: ExitResult): TaskEvent {
  const details: Record<string, string> = {
    exit_code: String(result.exitCode),
    signal: String(result.signal),
    oom_killed: String(result.oomKilled),
  };
  if (result.error !== '') details.exit_message = result.error;
  return taskEvent(
    'Terminated',
    { ExitCode: result.exitCode, Signal: result.signal, Message: result.error },
    details,
  );
}

export function killing(timeoutNs: number): TaskEvent {
  return taskEvent('Killing', { KillTimeout: timeoutNs }, { kill_timeout: formatGoDuration(timeoutNs) });
}

export const siblingFailed = (sibling: string) =>
  taskEvent('Sibling Task Failed', { FailedSibling: sibling }, { failed_sibling: sibling });

export const restarting = (delayNs: number, reason: string) =>
  taskEvent(
    'Restarting',
    { StartDelay: delayNs, RestartReason: reason },
    { start_delay: String(delayNs), restart_reason: reason },
  );

export const notRestarting = (reason: string) =>
  taskEvent(
    'Not Restarting',
    { RestartReason: reason, FailsTask: true },
    { restart_reason: reason, fails_task: 'true' },
  );

/** A task's exit as a driver reports it. */
export interface ExitResult {
  exitCode: number;
  signal: number;
  oomKilled: boolean;
  /** The exit message, e.g. `Docker container exited with non-zero exit code: 3`. */
  error: string;
}

/** Why a task could not start; `recoverable` errors may be retried by the restart policy. */
export class StartError extends Error {
  constructor(
    message: string,
    readonly recoverable: boolean,
    readonly validation = false,
  ) {
    super(message);
  }
}

const WITHIN_POLICY = 'Restart within policy';

export type RestartDecision =
  | { state: 'killed' }
  | { state: 'terminated' }
  | { state: 'not-restarting'; reason: string }
  | { state: 'restarting'; delayNs: number; reason: string };

/** restarts.RestartTracker: counts attempts per Interval and applies Mode `fail` or `delay`. */
export class RestartTracker {
  private count = 0;
  private windowStart = Date.now();

  constructor(
    private readonly policy: RestartPolicy,
    /** Batch tasks are not restarted after a successful exit; service tasks are. */
    private readonly restartOnSuccess: boolean,
  ) {}

  decide(outcome: { killed: boolean; startError?: StartError; exit?: ExitResult }): RestartDecision {
    if (outcome.killed) return { state: 'killed' };
    const success = outcome.exit !== undefined && outcome.exit.exitCode === 0 && outcome.exit.error === '';
    if (this.policy.Attempts === 0) {
      if (!this.restartOnSuccess && success) return { state: 'terminated' };
      return { state: 'not-restarting', reason: 'Policy allows no restarts' };
    }
    if (Date.now() > this.windowStart + this.policy.Interval / 1_000_000) {
      this.count = 0;
      this.windowStart = Date.now();
    }
    this.count++;
    if (outcome.startError !== undefined && !outcome.startError.recoverable) {
      return { state: 'not-restarting', reason: 'Error was unrecoverable' };
    }
    if (success && !this.restartOnSuccess) return { state: 'terminated' };
    if (this.count > this.policy.Attempts) {
      if (this.policy.Mode === 'fail') {
        const interval = formatGoDuration(this.policy.Interval);
        const reason = `Exceeded allowed attempts ${this.policy.Attempts} in interval ${interval} and mode is "fail"`;
        return { state: 'not-restarting', reason };
      }
      const delayNs = (this.windowStart + this.policy.Interval / 1_000_000 - Date.now()) * 1_000_000;
      return { state: 'restarting', delayNs, reason: 'Exceeded allowed attempts, applying a delay' };
    }
    // Nomad adds up to 25% jitter to the configured delay.
    const delayNs = Math.max(1, this.policy.Delay) * (1 + Math.random() * 0.25);
    return { state: 'restarting', delayNs: Math.round(delayNs), reason: WITHIN_POLICY };
  }
}
