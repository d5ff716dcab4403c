import { runners } from '../kinds.js';
import { httpUrl } from '../values/network.js';
import { boolean, integer, text } from '../values/scalars.js';
import { group, setting } from './define.js';

const V = runners('V');

/** The VM host API and the machines the vm runner creates. */
export const vmRunner = group(
  'VM runner',
  'The vm runner creates a virtual machine per stage through the VMHOST API (MacStadium Orka) and runs the steps in it over SSH.',
  [
    setting('SVC_VMHOST_ENDPOINT', V, httpUrl('https://orka.example.com'), {
      required: true,
      description: 'Address of the VMHOST (Orka) API.',
    }),
    setting('SVC_VMHOST_TOKEN', V, text('a VMHOST API token'), {
      required: true,
      secret: true,
      description: 'Token authenticating the runner to the VMHOST API.',
    }),
    setting('SVC_VMHOST_HTTP_DUMP', V, boolean, {
      description: 'Logs the requests to and responses from the VMHOST API, for debugging.',
    }),
    setting('SVC_VMHOST_HTTP_DUMP_BODY', V, boolean, {
      description: 'Also logs their bodies, for debugging.',
    }),
    setting('SVC_VM_IMAGE', V, text('a VMHOST image name'), {
      required: true,
      description:
        'The image machines are created from. Build a custom image that holds git and every tool the pipelines need.',
    }),
    setting('SVC_VM_CPU', V, integer({ min: 1 }), {
      description: 'The number of virtual CPUs of each machine.',
    }),
    setting('SVC_VM_USERNAME', V, text('a user name'), {
      description: 'The SSH login user of the machine image.',
    }),
    setting('SVC_VM_PASSWORD', V, text('a password'), {
      secret: true,
      description: 'The SSH login password of the machine image.',
    }),
  ],
);
