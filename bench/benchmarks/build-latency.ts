import type { Benchmark } from '../lib/benchmark.js';
import { interleave, timeCommand } from '../lib/process.js';
import { timeComparison } from '../lib/result.js';
import { buildStatus, startSvcSystem, type SvcSystem } from '../lib/svc-system.js';
import { oneStepPipeline } from '../lib/one-step.js';

const RUNS = 12;
const PIPELINE = oneStepPipeline(['true']);

/** Webhook sent → build `success` seen through the API (polled every 5 ms). */
async function pushToSuccess(system: SvcSystem, number: number): Promise<number> {
  system.github.commit(
    system.repo,
    'main',
    { '.drone.yml': PIPELINE, 'run.txt': `${number}\n` },
    `run ${number}`,
  );
  const started = performance.now();
  const status = await system.github.push(system.repo, 'main', system.hookUrl);
  if (status !== 200) throw new Error(`svc answered the webhook with ${status}`);
  for (const deadline = started + 60_000; performance.now() < deadline;) {
    const current = await buildStatus(system, number);
    if (current === 'success') return performance.now() - started;
    if (current !== undefined && ['failure', 'error', 'killed'].includes(current))
      throw new Error(`build ${number} ended ${current}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`build ${number} did not succeed within 60 s`);
}

/** Push → green through server and Docker runner vs `docker run` of the same step. */
export const buildLatency: Benchmark = {
  name: 'build-latency',
  needs: ['docker'],
  async run() {
    const system = await startSvcSystem();
    try {
      let number = 0;
      const { a: svc, b: baseline } = await interleave(
        RUNS,
        () => pushToSuccess(system, ++number),
        () => timeCommand('docker', ['run', '--rm', 'local/busybox', 'true']),
      );
      return [
        timeComparison(
          {
            name: 'build-latency',
            metric: 'webhook → build success, one step, clone disabled',
            notes:
              'svc server + svc runner docker processes, webhook signed by the GitHub double, build status polled every 5 ms through the API; baseline docker run --rm local/busybox true; interleaved, medians',
          },
          svc,
          baseline,
        ),
      ];
    } finally {
      await system.close();
    }
  },
};
