/**
 * A runner process that dies midway, for the leftovers test: it runs a stage whose steps take
 * minutes, prints `running` once they do, and waits to be killed with SIGKILL — so `destroy`
 * never comes. Usage: node --import tsx crash-fixture.case.ts <owner> <runId> (DOCKER_HOST set).
 */
import { StageExecutor } from '../../runner/executor.js';
import { execSpec, execStep } from '../../runner/testing/spec.js';
import { dockerClient } from './client.js';
import { DockerEngine } from './engine.js';

const [owner = 'svc-crash', runId = 'crash'] = process.argv.slice(2);
const engine = new DockerEngine({ docker: dockerClient({ host: process.env.DOCKER_HOST }), owner });
const sleeper = (name: string, detach: boolean) =>
  execStep(name, {
    pull: 'never',
    detach,
    entrypoint: ['/bin/sh', '-c'],
    command: ['echo running; exec sleep 300'],
  });
const spec = execSpec([sleeper('service', true), sleeper('step', false)], { runId });

await new StageExecutor({ engine }).execute(spec, {
  reporter: {
    stepStarted: () => undefined,
    stepLine: (step, line) => {
      if (step.name === 'step' && line.out === 'running') process.stdout.write('running\n');
    },
    stepFinished: () => undefined,
    stageFinished: () => undefined,
  },
});
