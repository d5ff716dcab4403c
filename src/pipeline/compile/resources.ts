import type { ExecStep } from '../../core/engine.js';
import type { StepResources } from '../types.js';
import type { RunnerLimits } from './input.js';

/** The CFS period used to turn a CPU limit in millicpus into a quota (Docker's default period). */
export const CFS_PERIOD = 100_000;

type Limits = Pick<
  ExecStep,
  'memLimit' | 'memSwapLimit' | 'shmSize' | 'cpuPeriod' | 'cpuQuota' | 'cpuShares' | 'cpuSet'
>;

/** A step's value under the runner's cap: the smaller one when both are set. */
function capped(own: number, cap: number): number {
  if (cap <= 0) return own;
  return own > 0 ? Math.min(own, cap) : cap;
}

/**
 * A step's resource limits. The runner's limits are maximums (SVC_MEMORY_LIMIT, SVC_CPU_QUOTA, …): a
 * step can ask for less, not more. `resources.limits` fill in for the Docker-style fields, with CPU
 * millicpus turned into a CFS quota; `resources.requests.cpu` becomes a relative CPU weight as
 * Kubernetes does it (1000 millicpus = 1024 shares). The runner's CPU set wins over the step's.
 */
export function stepLimits(resources: StepResources | undefined, runner: RunnerLimits): Limits {
  const own = resources;
  const milli = own?.limits.cpu ?? 0;
  const quota =
    own !== undefined && own.cpuQuota > 0 ? own.cpuQuota : milli > 0 ? (milli * CFS_PERIOD) / 1000 : 0;
  const period = own !== undefined && own.cpuPeriod > 0 ? own.cpuPeriod : milli > 0 ? CFS_PERIOD : 0;
  const requested = own?.requests.cpu ?? 0;
  const shares =
    own !== undefined && own.cpuShares > 0 ? own.cpuShares : Math.round((requested * 1024) / 1000);
  const memory = own !== undefined && own.memLimit > 0 ? own.memLimit : (own?.limits.memory ?? 0);
  return {
    memLimit: capped(memory, runner.memLimit),
    memSwapLimit: capped(own?.memSwapLimit ?? 0, runner.memSwapLimit),
    shmSize: capped(own?.shmSize ?? 0, runner.shmSize),
    cpuPeriod: period > 0 ? period : runner.cpuPeriod,
    cpuQuota: capped(Math.round(quota), runner.cpuQuota),
    cpuShares: shares > 0 ? shares : runner.cpuShares,
    cpuSet: runner.cpuSet.length > 0 ? [...runner.cpuSet] : [...(own?.cpuSet ?? [])],
  };
}
