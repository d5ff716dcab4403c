/** A build, stage or step status: its word, coloured; the word carries it, not the colour alone. */
export function Status({ status }: { status: string }) {
  return <span class={`status status-${status}`}>{status.replaceAll('_', ' ')}</span>;
}

/** `1m 05s` for a span of epoch seconds; empty before it started. */
export function duration(
  started: number | undefined,
  stopped: number | undefined,
  now = Date.now() / 1000,
): string {
  if (!started) return '';
  return span((stopped || now) - started);
}

/** `1m 05s`, `42s` for a number of seconds (rounded; never negative). */
export function span(seconds: number): string {
  const whole = Math.max(0, Math.round(seconds));
  const minutes = Math.floor(whole / 60);
  return minutes > 0 ? `${minutes}m ${String(whole % 60).padStart(2, '0')}s` : `${whole}s`;
}

/** `3 minutes ago`, for epoch seconds. */
export function ago(seconds: number | undefined): string {
  if (!seconds) return '';
  const diff = Math.max(0, Date.now() / 1000 - seconds);
  const units: [number, string][] = [
    [86_400, 'day'],
    [3_600, 'hour'],
    [60, 'minute'],
  ];
  for (const [size, unit] of units) {
    const count = Math.floor(diff / size);
    if (count >= 1) return `${count} ${unit}${count === 1 ? '' : 's'} ago`;
  }
  return 'just now';
}

/** `3 minutes ago` for epoch seconds, as a `<time>` whose hover shows the date and time. */
export function Ago({ seconds }: { seconds: number | undefined }) {
  if (!seconds) return null;
  const date = new Date(seconds * 1000);
  return (
    <time dateTime={date.toISOString()} title={date.toLocaleString()}>
      {ago(seconds)}
    </time>
  );
}

/** `in 3 days`, for epoch seconds still to come, rounded in its largest unit; `in a minute` for what is due. */
export function inTime(seconds: number): string {
  const diff = Math.max(0, seconds - Date.now() / 1000);
  const units: [number, string][] = [
    [86_400, 'day'],
    [3_600, 'hour'],
    [60, 'minute'],
  ];
  for (const [size, unit] of units) {
    if (diff < size) continue;
    const count = Math.round(diff / size);
    return `in ${count} ${unit}${count === 1 ? '' : 's'}`;
  }
  return 'in a minute';
}
