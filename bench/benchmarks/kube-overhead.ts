import { KubeConfig } from '@kubernetes/client-node';
import pino from 'pino';
import type { Engine, ExecSpec } from '../../src/core/engine.js';
import { dockerClient } from '../../src/engines/docker/client.js';
import { DockerEngine } from '../../src/engines/docker/engine.js';
import { KubeApi } from '../../src/engines/kubernetes/api.js';
import { KubernetesEngine } from '../../src/engines/kubernetes/engine.js';
import { MemoryReporter } from '../../src/runner/memory-reporter.js';
import { StageExecutor } from '../../src/runner/executor.js';
import { CONTRACT_WORKSPACE, posixShellStep } from '../../src/engines/engine.case.js';
import { execSpec } from '../../src/runner/testing/spec.js';
import { startKubernetesDouble } from '../../test/doubles/kubernetes/index.js';
import type { Benchmark } from '../lib/benchmark.js';
import { interleave } from '../lib/process.js';
import { timeComparison, type BenchResult } from '../lib/result.js';

const RUNS = 8;
const STEPS = 5;

/** A stage of five one-command steps, one after the other, with a fresh run id each time. */
function stage(run: number): ExecSpec {
  const steps = Array.from({ length: STEPS }, (_, i) =>
    posixShellStep(`step${i + 1}`, [`echo step ${i + 1}`], {
      image: 'local/busybox',
      pull: 'if-not-exists',
      dependsOn: i === 0 ? [] : [`step${i}`],
    }),
  );
  return execSpec(steps, { runId: `bench-${process.pid}-${run}`, workspace: CONTRACT_WORKSPACE });
}

/** Runs a stage to its end through the runner core on `engine`; its wall time in ms. */
async function timed(engine: Engine, spec: ExecSpec): Promise<number> {
  const started = performance.now();
  const result = await new StageExecutor({ engine, maxProcs: 0 }).execute(spec, {
    reporter: new MemoryReporter(),
  });
  if (result.status !== 'success') throw new Error(`the stage ended ${result.status}: ${result.error}`);
  return performance.now() - started;
}

/**
 * The same 5-step stage through the runner core on the Kubernetes engine (a pod on the API double,
 * whose kubelet runs it on the private Docker engine: pod create, an image swap per step, watch,
 * followed logs, pod delete) vs on the Docker engine (a container per step) of the same engine,
 * interleaved, medians. The difference is what Drone's pod model costs: each step restarts a
 * container of the pod instead of creating one.
 */
async function measure(): Promise<BenchResult> {
  const cluster = await startKubernetesDouble({ sandbox: 'placeholder' });
  try {
    const config = new KubeConfig();
    config.loadFromString(cluster.kubeconfig);
    const logger = pino({ level: 'silent' });
    const kube = new KubernetesEngine({
      api: new KubeApi(config),
      owner: 'bench-kube',
      placeholder: 'svc/placeholder',
      filesImage: 'svc/git',
      logger,
    });
    const docker = new DockerEngine({
      docker: dockerClient({ host: process.env.DOCKER_HOST }),
      owner: 'bench-kube',
    });
    let run = 0;
    const { a, b } = await interleave(
      RUNS,
      () => timed(kube, stage(run++)),
      () => timed(docker, stage(run++)),
    );
    return timeComparison(
      {
        name: 'kube-overhead',
        metric: `${STEPS}-step pipeline, wall time`,
        notes: `runner core + Kubernetes engine on the API double (pod per stage, image swap per step) vs runner core + Docker engine, same Docker engine, ${STEPS} sequential busybox steps, interleaved, medians`,
      },
      a,
      b,
    );
  } finally {
    await cluster.close();
  }
}

/** A 5-step pipeline through the Kubernetes engine vs the Docker engine on the same Docker engine. */
export const kubeOverhead: Benchmark = {
  name: 'kube-overhead',
  needs: ['docker'],
  async run() {
    return [await measure()];
  },
};
