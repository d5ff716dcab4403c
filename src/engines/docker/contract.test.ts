import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { execSpec } from '../../runner/testing/spec.js';
import { CONTRACT_WORKSPACE, engineContract, posixShellStep } from '../engine.case.js';
import { DockerEngine } from './engine.js';
import { LABEL_RUN } from './resources.js';
import { countMatching, dockerForTests } from './testing.case.js';

const { docker, skip } = await dockerForTests(['local/busybox']);
const run = promisify(execFile);

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
      running: async (marker) => {
        try {
          await run('pgrep', ['-f', marker]);
          return true;
        } catch {
          return false;
        }
      },
      leftovers: async (spec) => {
        const left = await countMatching(docker, { label: [`${LABEL_RUN}=${spec.runId}`] });
        return left.containers + left.networks + left.volumes > 0;
      },
      close: () => Promise.resolve(),
    });
  },
});
