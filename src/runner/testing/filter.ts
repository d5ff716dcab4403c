import type { WireFilter } from '../client/wire/index.js';

/**
 * The filter of a docker runner on linux/amd64 without labels: what tests and benchmarks poll with;
 * anonymous (as Drone's runners poll) unless `runner` says who asks.
 */
export function linuxDockerFilter(
  limits: WireFilter['limits'] = undefined,
  runner: WireFilter['runner'] = undefined,
): WireFilter {
  return {
    kind: 'pipeline',
    type: 'docker',
    os: 'linux',
    arch: 'amd64',
    variant: '',
    kernel: '',
    labels: {},
    limits,
    runner,
  };
}
