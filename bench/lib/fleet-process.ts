/*
 * The entry of the runners' own process (RunnerProcess starts it): a RunnerFleet whose milestones
 * go to the parent as epoch milliseconds, a turn of the event loop's worth per message.
 * Arguments: the server's URL, the RPC secret, the number of runners.
 */
import type { Milestone } from './fleet-progress.js';
import { RunnerFleet } from './runner-fleet.js';

/** Parent → runners. */
export type FleetCommand = { type: 'start' } | { type: 'stop' };

/** Runners → parent: milestones as [stage id, milestone, epoch ms]; the counters once stopped. */
export type FleetReport =
  | { type: 'milestones'; milestones: [number, Milestone, number][] }
  | {
      type: 'stopped';
      accepted: number;
      done: number;
      failures: number;
      errors: string[];
      /** CPU time this process used from `start` on, milliseconds. */
      cpu: number;
    };

const [url, secret, count] = process.argv.slice(2);
if (url === undefined || secret === undefined || count === undefined || process.send === undefined) {
  throw new Error('usage: fleet-process.ts URL SECRET COUNT, started with an IPC channel');
}
const send = (report: FleetReport): void => void process.send?.(report);

let pending: [number, Milestone, number][] = [];
let started: NodeJS.CpuUsage | undefined;
const fleet = new RunnerFleet(url, secret, Number(count), (stageId, what, at) => {
  if (pending.length === 0) setImmediate(flush);
  pending.push([stageId, what, performance.timeOrigin + at]);
});

function flush(): void {
  send({ type: 'milestones', milestones: pending });
  pending = [];
}

process.on('message', (command: FleetCommand) => {
  switch (command.type) {
    case 'start':
      started = process.cpuUsage();
      fleet.start();
      return;
    case 'stop':
      void fleet.stop().then(() => {
        if (pending.length > 0) flush();
        const { accepted, done, failures, errors } = fleet;
        const { user, system } = process.cpuUsage(started);
        send({ type: 'stopped', accepted, done, failures, errors, cpu: (user + system) / 1000 });
        process.disconnect();
      });
      return;
  }
});
// The benchmark went away: so do its runners.
process.on('disconnect', () => process.exit(0));
