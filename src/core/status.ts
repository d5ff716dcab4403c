/** The one status union shared by builds, stages and steps. */
export const STATUSES = [
  'pending',
  'waiting_on_dependencies',
  'blocked',
  'declined',
  'running',
  'success',
  'failure',
  'killed',
  'error',
  'skipped',
] as const;

export type Status = (typeof STATUSES)[number];

/** True for a status that never changes again. */
export function isDone(status: Status): boolean {
  switch (status) {
    case 'pending':
    case 'waiting_on_dependencies':
    case 'blocked':
    case 'running':
      return false;
    case 'declined':
    case 'success':
    case 'failure':
    case 'killed':
    case 'error':
    case 'skipped':
      return true;
  }
}

/** True for a finished status that counts against the build (anything but success or skipped). */
export function isFailed(status: Status): boolean {
  return isDone(status) && status !== 'success' && status !== 'skipped';
}

export function isStatus(value: unknown): value is Status {
  return typeof value === 'string' && (STATUSES as readonly string[]).includes(value);
}
