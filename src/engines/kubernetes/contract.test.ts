import { randomUUID } from 'node:crypto';
import { KubeConfig } from '@kubernetes/client-node';
import pino from 'pino';
import { startKubernetesDouble } from '../../../test/doubles/kubernetes/index.js';
import { execSpec } from '../../runner/testing/spec.js';
import { dockerForTests } from '../docker/testing.case.js';
import { CONTRACT_WORKSPACE, engineContract, posixShellStep, processRunning } from '../engine.case.js';
import { KubeApi } from './api.js';
import { KubernetesEngine, RUN_LABEL } from './engine.js';

const { docker, skip } = await dockerForTests(['local/busybox', 'svc/placeholder']);

engineContract({
  name: 'Kubernetes (the API double running pods on the private Docker engine, busybox steps)',
  skip,
  async start() {
    if (docker === undefined) throw new Error('no Docker engine');
    const cluster = await startKubernetesDouble();
    const config = new KubeConfig();
    config.loadFromString(cluster.kubeconfig);
    const engine = new KubernetesEngine({
      api: new KubeApi(config),
      owner: `svc-contract-${randomUUID().slice(0, 8)}`,
      placeholder: 'svc/placeholder',
      logger: pino({ level: 'silent' }),
    });
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
