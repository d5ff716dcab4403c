import { randomUUID } from 'node:crypto';
import { execSpec } from '../../runner/testing/spec.js';
import { CONTRACT_WORKSPACE, engineContract, posixShellStep, processRunning } from '../engine.case.js';
import { DockerEngine } from './engine.js';
import { LABEL_RUN } from './resources.js';
import { countMatching, dockerForTests } from './testing.case.js';

const { docker, skip } = await dockerForTests(['local/busybox']);

engineContract({
  name: 'Docker (the private engine of .ci/services.sh, busybox steps)',
  skip,
  start() {
    if (docker === undefined) throw new Error('no Docker engine');
    const engine = new DockerEngine({ docker, owner: `svc-contract-${randomUUID().slice(0, 8)}` });
    return Promise.resolve({
      engine,
      shellStep: (name, commands, fields = {}) =>
        posixShellStep(name, commands, { image: 'local/busybox', ...fields }),
      spec: (steps) => execSpec(steps, { workspace: CONTRACT_WORKSPACE }),
      // Containers' processes are this machine's processes: the engine runs here.
      running: processRunning,
      leftovers: async (spec) => {
        const left = await countMatching(docker, { label: [`${LABEL_RUN}=${spec.runId}`] });
        return left.containers + left.networks + left.volumes > 0;
      },
      close: () => Promise.resolve(),
    });
  },
});
