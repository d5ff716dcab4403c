import type {
  AroundStep,
  Engine,
  ExecSpec,
  ExecStep,
  OutputSink,
  StepExit,
  StepFiles,
} from '../core/engine.js';
import { CLONE_STEP } from '../pipeline/compile/dag.js';
import { artifactsAfter, type ArtifactsAfter } from './artifacts/around.js';
import type { ArtifactTransport, TestReceipt } from './artifacts/transport.js';
import { stepCache } from './cache/around.js';
import type { CacheTransport } from './cache/transport.js';

/** What moving a step's files needs from its stage. */
export interface StageFiles {
  spec: ExecSpec;
  engine: Pick<Engine, 'movesStepFiles'>;
  caches?: CacheTransport | undefined;
  artifacts?: ArtifactTransport | undefined;
  /** `artifacts: from:` of the stage, run once by the first step after the clone (artifactsFetch). */
  fetchArtifacts?: ((files: StepFiles, say: (line: string) => void) => Promise<void>) | undefined;
  now: () => number;
}

/**
 * Everything done with a step's files around its run (svc additions), in order: the stage's
 * `artifacts: from:` (before any step after the clone), the step's cache, its artifacts. What a
 * runner cannot do is said in the step's log; the step then runs without it.
 */
export function stepAround(
  step: ExecStep,
  stage: StageFiles & {
    output: OutputSink;
    signal: AbortSignal;
    /** Whether the attempt that exited so runs again (`retry:`): its files are not kept. */
    retried?: (exit: StepExit) => boolean;
    /** The attempt (`retry:`), from 1. */
    attempt?: number;
    /** Told what the server read of the step's test reports, once uploaded. */
    onTests?: (tests: TestReceipt) => void;
  },
): AroundStep | undefined {
  const { spec, output } = stage;
  const isClone = step === spec.steps[0] && step.name === CLONE_STEP;
  const fetch = isClone ? undefined : stage.fetchArtifacts;
  const wanted = step.cache !== undefined || step.artifacts !== undefined || fetch !== undefined;
  if (!wanted) return undefined;
  if (stage.engine.movesStepFiles !== true) {
    output('cache and artifacts: not used: this runner kind cannot move a step’s files yet');
    return undefined;
  }
  const cache = stepCache(step, stage);
  let artifacts: ArtifactsAfter | undefined;
  if (step.artifacts !== undefined) {
    if (stage.artifacts === undefined) output('artifacts: not kept: this runner keeps no artifacts');
    else
      artifacts = artifactsAfter({
        step: step.name,
        attempt: stage.attempt ?? 1,
        artifacts: step.artifacts,
        workspacePath: spec.workspace.path,
        transport: stage.artifacts,
        say: output,
        signal: stage.signal,
        now: stage.now,
      });
  }
  return {
    async before(files) {
      await fetch?.(files, output);
      await cache?.before(files);
    },
    async after(files, exit) {
      const retried = stage.retried?.(exit) === true;
      if (retried && (cache !== undefined || artifacts !== undefined))
        output('cache and artifacts: left to the attempt that runs next');
      if (!retried) await cache?.after(files, exit);
      const tests = await artifacts?.(files, exit, retried);
      if (tests !== undefined) stage.onTests?.(tests);
    },
  };
}
