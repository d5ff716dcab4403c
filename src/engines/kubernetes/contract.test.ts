import { randomUUID } from 'node:crypto';
import { KubeConfig } from '@kubernetes/client-node';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { startKubernetesDouble } from '../../../test/doubles/kubernetes/index.js';
import type { ExecStep } from '../../core/engine.js';
import { StageExecutor } from '../../runner/executor.js';
import { MemoryReporter } from '../../runner/memory-reporter.js';
import { execSpec } from '../../runner/testing/spec.js';
import { startRegistry } from '../docker/api/registry.case.js';
import { dockerForTests } from '../docker/testing.case.js';
import { CONTRACT_WORKSPACE, engineContract, posixShellStep, processRunning } from '../engine.case.js';
import { KubeApi } from './api.js';
import { KubernetesEngine, RUN_LABEL } from './engine.js';

const { docker, skip } = await dockerForTests(['local/busybox', 'svc/placeholder']);

/** A kubernetes engine on the double of `kubeconfig`, owned by a fresh `<prefix>-…` runner name. */
function kubernetesEngine(kubeconfig: string, prefix: string): KubernetesEngine {
  const config = new KubeConfig();
  config.loadFromString(kubeconfig);
  return new KubernetesEngine({
    api: new KubeApi(config),
    owner: `${prefix}-${randomUUID().slice(0, 8)}`,
    placeholder: 'svc/placeholder',
    filesImage: 'svc/git',
    logger: pino({ level: 'silent' }),
  });
}

engineContract({
  name: 'Kubernetes (the API double running pods on the private Docker engine, busybox steps)',
  skip,
  async start() {
    if (docker === undefined) throw new Error('no Docker engine');
    const cluster = await startKubernetesDouble();
    const engine = kubernetesEngine(cluster.kubeconfig, 'svc-contract');
    return {
      engine,
      shellStep: (name, commands, fields = {}) =>
        posixShellStep(name, commands, { image: 'local/busybox', ...fields }),
      spec: (steps) => execSpec(steps, { workspace: CONTRACT_WORKSPACE }),
      // The pods' containers are this machine's processes: the double runs them on the local engine.
      running: processRunning,
      leftovers: (spec) => {
        const runId = spec.runId;
        const pods = cluster.pods().filter((pod) => pod.name.includes(runId.slice(0, 20)));
        const secrets = cluster.secrets().filter((secret) => secret.metadata.labels?.[RUN_LABEL] === runId);
        return Promise.resolve(pods.length + secrets.length > 0);
      },
      close: () => cluster.close(),
    };
  },
});

describe.skipIf(skip)('Kubernetes engine: variables that change while the stage runs', () => {
  it('gives a step that starts after a failure DRONE_BUILD_STATUS=failure, through the pod’s annotations', async () => {
    const cluster = await startKubernetesDouble();
    try {
      const engine = kubernetesEngine(cluster.kubeconfig, 'svc-status');
      const compiled = { DRONE_BUILD_STATUS: 'success', DRONE_STAGE_STATUS: 'success' };
      const step = (name: string, commands: string[], fields: Partial<ExecStep> = {}) =>
        posixShellStep(name, commands, { image: 'local/busybox', envs: { ...compiled }, ...fields });
      const spec = execSpec(
        [
          step('test', ['exit 2']),
          step(
            'notify',
            [
              'echo "status=$DRONE_BUILD_STATUS failed=$DRONE_FAILED_STEPS"',
              'grep DRONE_STAGE_STATUS /run/drone/env',
            ],
            { dependsOn: ['test'], runPolicy: 'on-failure' },
          ),
        ],
        { workspace: CONTRACT_WORKSPACE },
      );
      const reporter = new MemoryReporter();
      const result = await new StageExecutor({ engine, maxProcs: 0 }).execute(spec, { reporter });
      expect(result.status, JSON.stringify(result.steps)).toBe('failure');
      // The container's own variables say success; the script loaded the annotations' values.
      expect(reporter.lines('notify')).toEqual(
        expect.arrayContaining(['status=failure failed=test', 'DRONE_STAGE_STATUS="failure"']),
      );
    } finally {
      await cluster.close();
    }
  }, 60_000);
});

describe.skipIf(skip)('Kubernetes engine: registry credentials', () => {
  it('pulls a private image with the pod’s image pull secret, made of the step’s credentials', async () => {
    const cluster = await startKubernetesDouble();
    const registry = await startRegistry('octo', 'p4ss');
    try {
      const engine = kubernetesEngine(cluster.kubeconfig, 'svc-pull');
      // The registry's image holds a file and no program: the step cannot run, the pull is the point.
      const step = posixShellStep('private', [], {
        image: registry.image,
        entrypoint: [],
        command: [],
        auth: { address: registry.address, username: 'octo', password: 'p4ss' },
      });
      const spec = execSpec([step], { workspace: CONTRACT_WORKSPACE });
      await engine.setup(spec);
      try {
        await engine.run(spec, step, () => undefined).catch(() => undefined);
      } finally {
        await engine.destroy(spec);
      }
      const pulls = cluster.pullAttempts().filter((pull) => pull.image.includes(registry.address));
      expect(pulls.some((pull) => pull.ok && pull.credentialsFrom?.endsWith('-pull') === true)).toBe(true);
      expect(cluster.secrets().filter((secret) => secret.type === 'kubernetes.io/dockerconfigjson')).toEqual(
        [],
      );
    } finally {
      await registry.close();
      await cluster.close();
    }
  }, 90_000);
});

describe.skipIf(skip)('Kubernetes engine: entrypoints', () => {
  it('runs a step with an entrypoint of its own, which the placeholder does not have', async () => {
    const cluster = await startKubernetesDouble();
    try {
      const engine = kubernetesEngine(cluster.kubeconfig, 'svc-entry');
      const step = posixShellStep('own', [], {
        image: 'local/busybox',
        entrypoint: ['/bin/echo'],
        command: ['hello', 'from', 'echo'],
      });
      const spec = execSpec([step], { workspace: CONTRACT_WORKSPACE });
      const lines: string[] = [];
      await engine.setup(spec);
      try {
        expect(await engine.run(spec, step, (line) => lines.push(line))).toEqual({
          exitCode: 0,
          oomKilled: false,
        });
      } finally {
        await engine.destroy(spec);
      }
      expect(lines).toEqual(['hello from echo']);
    } finally {
      await cluster.close();
    }
  }, 60_000);
});
