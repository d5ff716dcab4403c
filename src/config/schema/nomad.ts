import { runners } from '../kinds.js';
import { list } from '../values/collections.js';
import { integer, text } from '../values/scalars.js';
import { group, setting } from './define.js';

const J = runners('J');

/** Where the nomad runner places its jobs. */
export const nomadRunner = group(
  'Nomad runner',
  'Each stage becomes a Nomad batch job whose task is the svc controller process; these settings place that job.',
  [
    setting('SVC_JOB_DATACENTER', J, list(), {
      default: ['dc1'],
      description: 'The Nomad datacenters jobs may run in.',
    }),
    setting('SVC_JOB_IMAGE', J, text('an image name'), {
      defaultDoc: "`svc/svc:<this svc's version>`",
      addition: true,
      description:
        "svc addition: the image of the controller task that runs each stage (`svc runner docker --stage <id>`): svc's own image, built by `npm run images` or the repository's Dockerfile. Keep it at the runner's version.",
    }),
    setting('SVC_JOB_NAMESPACE', J, text('a Nomad namespace'), {
      description: 'The Nomad namespace of the jobs.',
    }),
    setting('SVC_JOB_REGION', J, text('a Nomad region'), {
      description: 'The Nomad region of the jobs.',
    }),
    setting('SVC_TASK_COMPUTE', J, integer({ min: 1, unit: 'MHz' }), {
      description:
        "CPU reserved for the controller task, in MHz. It does not limit the pipeline's own containers.",
    }),
    setting('SVC_TASK_MEMORY', J, integer({ min: 1, unit: 'MB' }), {
      description:
        "Memory reserved for the controller task, in MB. It does not limit the pipeline's own containers.",
    }),
  ],
);
