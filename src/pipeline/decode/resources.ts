import type { StepResources } from '../types.js';
import { type Fields } from './fields.js';
import { readByteSize, readMilliCpu } from './units.js';

const RESOURCES_SET = { what: 'a resources section', known: ['limits', 'requests'] };
const AMOUNTS_SET = { what: 'resource amounts', known: ['cpu', 'memory'] };

/** The resource fields of a step: Docker-style (`mem_limit`, `cpu_quota`, …) and `resources: {limits, requests}`. */
export function readResources(fields: Fields): StepResources {
  const bytes = (key: string): number => {
    const node = fields.node(key);
    return node === undefined ? 0 : (readByteSize(node, fields.field(key), fields.diagnostics) ?? 0);
  };
  const section = fields.section('resources', RESOURCES_SET);
  return {
    memLimit: bytes('mem_limit'),
    memSwapLimit: bytes('memswap_limit'),
    shmSize: bytes('shm_size'),
    cpuPeriod: fields.int('cpu_period', 'a CFS period in microseconds, e.g. 100000') ?? 0,
    cpuQuota: fields.int('cpu_quota', 'a CFS quota in microseconds per period, e.g. 50000') ?? 0,
    cpuShares: fields.int('cpu_shares', 'a relative CPU weight, e.g. 512') ?? 0,
    cpuSet: fields
      .strings('cpu_set', 'CPUs the step may use, e.g. ["0", "1"] or "0-3"')
      .flatMap((value) => value.split(','))
      .map((value) => value.trim())
      .filter((value) => value !== ''),
    limits: readAmounts(section, 'limits'),
    requests: readAmounts(section, 'requests'),
  };
}

function readAmounts(
  section: Fields | undefined,
  key: 'limits' | 'requests',
): { cpu: number; memory: number } {
  const amounts = section?.section(key, AMOUNTS_SET);
  if (amounts === undefined) return { cpu: 0, memory: 0 };
  const cpu = amounts.node('cpu');
  const memory = amounts.node('memory');
  return {
    cpu: cpu === undefined ? 0 : (readMilliCpu(cpu, amounts.field('cpu'), amounts.diagnostics) ?? 0),
    memory:
      memory === undefined ? 0 : (readByteSize(memory, amounts.field('memory'), amounts.diagnostics) ?? 0),
  };
}
