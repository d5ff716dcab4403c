import type { ClusterSignal } from '../../core/cluster.js';

/** A signal as the text a channel carries, with the sending server's id so that it skips its own. */
export function signalText(origin: string, signal: ClusterSignal): string {
  return JSON.stringify({ origin, ...signal });
}

/**
 * The signal in `text` when another server sent it; undefined for this server's own signals and for
 * text that is not a signal (a newer svc's kind, a stray NOTIFY on the channel): ignored, not fatal.
 */
export function readSignal(origin: string, text: string): ClusterSignal | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { origin: from, ...fields } = value as Record<string, unknown>;
  if (from === origin) return undefined;
  const id = (key: string): boolean => Number.isSafeInteger(fields[key]);
  switch (fields.kind) {
    case 'queue':
      return { kind: 'queue' };
    case 'build':
      return id('build') ? { kind: 'build', build: fields.build as number } : undefined;
    case 'log':
      return id('step') && id('batch')
        ? { kind: 'log', step: fields.step as number, batch: fields.batch as number }
        : undefined;
    case 'log-end':
      return id('step') && id('last')
        ? { kind: 'log-end', step: fields.step as number, last: fields.last as number }
        : undefined;
    default:
      return undefined;
  }
}
