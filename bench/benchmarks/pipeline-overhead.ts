import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Benchmark, BenchContext } from '../lib/benchmark.js';
import { interleave, timeCommand } from '../lib/process.js';
import { timeComparison, type BenchResult } from '../lib/result.js';

const RUNS = 12;
const IMAGE = 'local/busybox';

function pipeline(steps: number): string {
  const body = Array.from(
    { length: steps },
    (_, i) => `- name: step${i + 1}\n  image: ${IMAGE}\n  pull: if-not-exists\n  commands: [ "true" ]\n`,
  ).join('');
  return `kind: pipeline\ntype: docker\nname: default\nsteps:\n${body}`;
}

async function measure(ctx: BenchContext, steps: number): Promise<BenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-exec-'));
  writeFileSync(join(dir, '.drone.yml'), pipeline(steps));
  try {
    const svcExec = () => timeCommand(ctx.node, [ctx.svcMain, 'exec'], { cwd: dir });
    const dockerRuns = async () => {
      let total = 0;
      for (let i = 0; i < steps; i++) total += await timeCommand('docker', ['run', '--rm', IMAGE, 'true']);
      return total;
    };
    const { a: svc, b: baseline } = await interleave(RUNS, svcExec, dockerRuns);
    return timeComparison(
      {
        name: 'pipeline-overhead',
        metric: `${steps}-step pipeline, wall time`,
        notes: `svc exec (whole command: Node start, lint, compile, network + containers, cleanup) vs ${steps} × docker run --rm ${IMAGE} true, interleaved, medians`,
      },
      svc,
      baseline,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** svc exec of a one-step and a five-step pipeline vs the raw `docker run`s of the same commands. */
export const pipelineOverhead: Benchmark = {
  name: 'pipeline-overhead',
  needs: ['docker'],
  async run(ctx) {
    return [await measure(ctx, 1), await measure(ctx, 5)];
  },
};
