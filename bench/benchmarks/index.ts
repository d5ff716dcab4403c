import type { Benchmark } from '../lib/benchmark.js';
import { apiScale } from './api-scale.js';
import { buildLatency } from './build-latency.js';
import { buildThroughput } from './build-throughput.js';
import { cacheMemory } from './cache-memory.js';
import { cacheSpeedup } from './cache-speedup.js';
import { cacheThroughput } from './cache-throughput.js';
import { dispatch } from './dispatch.js';
import { failover } from './failover.js';
import { firstBuildBenchmark } from './first-build.js';
import { insights } from './insights.js';
import { kubeOverhead } from './kube-overhead.js';
import { logThroughput } from './log-throughput.js';
import { memory } from './memory.js';
import { pipelineOverhead } from './pipeline-overhead.js';
import { sshOverhead } from './ssh-overhead.js';
import { soak } from './soak.js';
import { startup } from './startup.js';
import { triggerBenchmark } from './trigger.js';
import { viewers } from './viewers.js';
import { web } from './web.js';

/** Every benchmark `npm run bench` knows, in the order `all` runs them. */
export const BENCHMARKS: readonly Benchmark[] = [
  pipelineOverhead,
  buildLatency,
  buildThroughput,
  dispatch,
  memory,
  logThroughput,
  viewers,
  web,
  sshOverhead,
  kubeOverhead,
  startup,
  firstBuildBenchmark,
  apiScale,
  insights,
  failover,
  soak,
  cacheSpeedup,
  cacheThroughput,
  cacheMemory,
  triggerBenchmark,
];
