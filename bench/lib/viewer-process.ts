/*
 * The entry of a process of log viewers (ViewerCrowd starts it): `count` viewers of one server-sent
 * events stream, each on a bare socket (followRaw). Arguments: the server's port, the stream's
 * path, the API token, count.
 */
import { wallClock } from './log-flood.js';
import { followRaw, type RawSeen } from './sse-raw.js';

/** Parent → viewers: `close` gives up on the streams still open. */
export type ViewerCommand = { type: 'close' };

/** What one viewer saw, but its timed lines: how many it got. */
export type ViewerSeen = Omit<RawSeen, 'samples'> & { samples: number };

/** Viewers → parent. */
export type ViewerReport =
  /** Every viewer is subscribed (epoch ms of the last one). */
  | { type: 'opened'; at: number }
  | { type: 'failed'; error: string }
  | {
      type: 'done';
      viewers: ViewerSeen[];
      /** Print → arrival (ms) of the timed lines printed after their viewer subscribed. */
      latencies: number[];
      /** The first and the last timed line any viewer got: [line, printed (epoch ms)]. */
      first: [number, number] | undefined;
      last: [number, number] | undefined;
      /** CPU time this process used from `opened` on, milliseconds. */
      cpu: number;
    };

const [port, path, token, count] = process.argv.slice(2);
if (port === undefined || path === undefined || token === undefined || process.send === undefined) {
  throw new Error('usage: viewer-process.ts PORT PATH TOKEN COUNT, started with an IPC channel');
}
const send = (report: ViewerReport): void => void process.send?.(report);

const viewers = Array.from({ length: Number(count) }, () => followRaw(Number(port), path, token, wallClock));
process.on('message', (command: ViewerCommand) => {
  if (command.type === 'close') for (const viewer of viewers) viewer.close();
});
// The benchmark went away: so do its viewers.
process.on('disconnect', () => process.exit(0));

let since: NodeJS.CpuUsage | undefined;
let opened: number[] = [];
try {
  opened = await Promise.all(viewers.map((viewer) => viewer.opened));
  since = process.cpuUsage();
  send({ type: 'opened', at: Math.max(...opened) });
} catch (error) {
  send({ type: 'failed', error: error instanceof Error ? error.message : String(error) });
}
const seen = await Promise.all(viewers.map((viewer) => viewer.done));
const { user, system } = process.cpuUsage(since);
const latencies: number[] = [];
let first: [number, number] | undefined;
let last: [number, number] | undefined;
seen.forEach(({ samples }, i) => {
  const subscribed = opened[i] ?? Number.POSITIVE_INFINITY;
  for (const [line, printed, arrived] of samples) {
    if (printed >= subscribed) latencies.push(Math.round((arrived - printed) * 10) / 10);
    if (first === undefined || printed < first[1]) first = [line, printed];
    if (last === undefined || printed > last[1]) last = [line, printed];
  }
});
const report: ViewerReport = {
  type: 'done',
  viewers: seen.map((viewer) => ({ ...viewer, samples: viewer.samples.length })),
  latencies,
  first,
  last,
  cpu: (user + system) / 1000,
};
// Once written: a large report would otherwise be cut by the channel closing.
process.send(report, () => process.disconnect());
