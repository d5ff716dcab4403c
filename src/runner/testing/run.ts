import type { ExecStep } from '../../core/engine.js';
import { NullEngine, type NullEngineOptions } from '../../engines/null/engine.js';
import { StageExecutor, type ExecuteOptions } from '../executor.js';
import { MemoryReporter } from '../memory-reporter.js';
import type { StageResult, StepResult } from '../reporter.js';
import { execSpec } from './spec.js';

/** A stage run on the null engine, with what the tests look at. */
export interface Run {
  result: StageResult;
  engine: NullEngine;
  reporter: MemoryReporter;
  step: (name: string) => StepResult;
}

/** Runs `steps` as one stage on a NullEngine scripted with `engineOptions`. */
export async function runOnNullEngine(
  steps: ExecStep[],
  engineOptions: NullEngineOptions = {},
  options: ExecuteOptions & { maxProcs?: number } = {},
): Promise<Run> {
  const engine = new NullEngine(engineOptions);
  const reporter = new MemoryReporter();
  const executor = new StageExecutor({ engine, maxProcs: options.maxProcs ?? 0 });
  const result = await executor.execute(execSpec(steps), { reporter, ...options });
  const step = (name: string): StepResult => {
    const found = result.steps.find((s) => s.name === name);
    if (!found) throw new Error(`no step ${name}`);
    return found;
  };
  return { result, engine, reporter, step };
}

/** Each step's status, by name. */
export function statuses(result: StageResult): Record<string, string> {
  return Object.fromEntries(result.steps.map((s) => [s.name, s.status]));
}
