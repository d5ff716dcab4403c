import { randomUUID } from 'node:crypto';
import { KubeConfig } from '@kubernetes/client-node';
import pino from 'pino';
import { afterAll, beforeAll, expect } from 'vitest';
import { startKubernetesDouble, type KubernetesDouble } from '../../../test/doubles/kubernetes/index.js';
import type { ExecSpec } from '../../core/engine.js';
import type { ArtifactTransport } from '../../runner/artifacts/transport.js';
import type { CacheTransport } from '../../runner/cache/transport.js';
import { StageExecutor } from '../../runner/executor.js';
import type { StageResult } from '../../runner/reporter.js';
import { MemoryReporter } from '../../runner/memory-reporter.js';
import { KubeApi } from './api.js';
import { KubernetesEngine } from './engine.js';

/** Stages run by the kubernetes engine on a Kubernetes double (the files container runs svc/git). */
export interface KubeStages {
  cluster: KubernetesDouble;
  run(
    spec: ExecSpec,
    stores: { caches?: CacheTransport; artifacts?: ArtifactTransport },
  ): Promise<{ result: StageResult; lines: (step: string) => string[] }>;
}

export async function kubeStages(
  options: { filesImage?: string; startTimeout?: number } = {},
): Promise<KubeStages> {
  const cluster = await startKubernetesDouble();
  const config = new KubeConfig();
  config.loadFromString(cluster.kubeconfig);
  const engine = new KubernetesEngine({
    api: new KubeApi(config),
    owner: `svc-files-${randomUUID().slice(0, 8)}`,
    placeholder: 'svc/placeholder',
    filesImage: options.filesImage ?? 'svc/git',
    logger: pino({ level: 'silent' }),
    ...(options.startTimeout === undefined ? {} : { startTimeout: options.startTimeout }),
  });
  return {
    cluster,
    async run(spec, stores) {
      const reporter = new MemoryReporter();
      const result = await new StageExecutor({ engine }).execute(spec, { reporter, ...stores });
      return { result, lines: (step) => reporter.lines(step) };
    },
  };
}

/**
 * A describe block's stages on one Kubernetes double, started before its tests and closed after
 * them, once the double saw no internal error; `stages()` is it while the tests run.
 */
export function useKubeStages(): () => KubeStages {
  let stages: KubeStages | undefined;
  beforeAll(async () => {
    stages = await kubeStages();
  });
  afterAll(async () => {
    expect(stages?.cluster.internalErrors()).toEqual([]);
    await stages?.cluster.close();
  });
  return () => {
    if (stages === undefined) throw new Error('the Kubernetes double did not start');
    return stages;
  };
}
