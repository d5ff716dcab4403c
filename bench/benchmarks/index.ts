import type { Benchmark } from '../lib/benchmark.js';
import { dispatch } from './dispatch.js';
import { pipelineOverhead } from './pipeline-overhead.js';

/** Every benchmark `npm run bench` knows, in the order `all` runs them. */
export const BENCHMARKS: readonly Benchmark[] = [pipelineOverhead, dispatch];
