import { runners } from '../kinds.js';
import { list } from '../values/collections.js';
import { cpuSet, devicePath, volumeMount } from '../values/entries.js';
import { host } from '../values/network.js';
import { boolean, integer, text } from '../values/scalars.js';
import { group, setting } from './define.js';

const CJ = runners('C', 'J');
const C = runners('C');

/** How the docker and nomad runners start pipeline containers. */
export const containerExecution = group(
  'Container runners (docker, nomad): execution',
  'Resources, images, devices, networks and volumes of pipeline containers, and remote shell access to them.',
  [
    setting('SVC_CPU_PERIOD', CJ, integer({ min: 1000, max: 1_000_000, unit: 'microseconds' }), {
      description: 'The CPU CFS scheduler period of pipeline containers, used together with SVC_CPU_QUOTA.',
    }),
    setting('SVC_CPU_QUOTA', CJ, integer({ min: 1000, unit: 'microseconds' }), {
      description:
        'The CPU CFS quota of every pipeline container: microseconds of CPU time per period before it is throttled.',
    }),
    setting('SVC_CPU_SET', CJ, list(cpuSet), {
      description: 'The CPUs pipeline containers may run on, as numbers or ranges (0,1 or 0-3).',
    }),
    setting('SVC_CPU_SHARES', CJ, integer({ min: 2, max: 262_144 }), {
      default: 1024,
      description:
        "The relative CPU weight of pipeline containers; above 1024 gives them more of the host's CPU, below less.",
    }),
    setting('SVC_MEMORY_LIMIT', CJ, integer({ min: 6_291_456, unit: 'bytes' }), {
      description: "The most memory one pipeline container may use, in bytes (Docker's minimum is 6 MiB).",
    }),
    setting('SVC_MEMORY_SWAP_LIMIT', CJ, integer({ min: -1, unit: 'bytes' }), {
      description:
        'The most memory plus swap one pipeline container may use, in bytes; -1 allows unlimited swap.',
    }),
    setting('SVC_CONTAINER_STREAM_PULL', CJ, boolean, {
      default: true,
      description:
        'Whether the output of image pulls is written into the build log. The spec describes this setting ambiguously; svc reads it as "stream image-pull output into the build log": true (the default) shows pull progress, false hides it.',
    }),
    setting('SVC_NETRC_CLONE_ONLY', C, boolean, {
      description:
        "Gives clone credentials to the clone step only. Otherwise they go to every step when the repository is private or needs authentication to clone; they are never given for public repositories. Builds of forks' pull requests always get them in the clone step only: their code runs in the other steps.",
    }),
    setting('SVC_RUNNER_CLONE_IMAGE', CJ, text('an image name such as svc/git:latest'), {
      defaultDoc: "none: svc's clone image, svc/git",
      description: "The image of the clone step, replacing svc's own clone image.",
    }),
    setting('SVC_RUNNER_DEVICES', runners('C', 'J', 'K'), list(devicePath), {
      description: 'Host devices mounted into every step, e.g. /dev/fuse.',
    }),
    setting('SVC_RUNNER_NETWORKS', CJ, list(), {
      description: 'Container networks every step is attached to.',
    }),
    setting('SVC_RUNNER_PRIVILEGED_IMAGES', runners('C', 'J', 'K'), list(), {
      description:
        'Images whose steps run privileged. A privileged container effectively has root access to the host.',
    }),
    setting('SVC_RUNNER_VOLUMES', CJ, list(volumeMount), {
      description: 'Host paths mounted into every step, as <host_path>:<container_path> entries.',
    }),
    setting('SVC_SHELLSHARE_ENABLED', C, boolean, {
      default: false,
      description:
        "Lets users open a remote shell into a failed step's container through SHELLSHARE (tmate): in a debug build (`svc build create --debug`, or a restart with debug=true) a step whose command fails keeps its container and starts `tmate -F` against the configured relay (tmate's public servers without SVC_SHELLSHARE_HOST); the ssh and web connect strings appear in the step's log, and the stage waits until the session ends or the stage times out. tmate comes from svc's clone image (a bundle of Debian's tmate with its libraries), mounted read-only into steps at /usr/drone/tmate from a Docker volume the runner fills at start; it runs in any Linux image with /bin/sh on the runner's architecture.",
    }),
    setting('SVC_SHELLSHARE_HOST', C, host(false), {
      defaultDoc: 'none: the public tmate servers',
      description: 'Host of a self-hosted SHELLSHARE (tmate) server. Needs SVC_SHELLSHARE_PORT.',
    }),
    setting('SVC_SHELLSHARE_PORT', C, integer({ min: 1, max: 65_535 }), {
      description: 'Port of the self-hosted SHELLSHARE server. Needs SVC_SHELLSHARE_HOST.',
    }),
    setting('SVC_SHELLSHARE_FINGERPRINT_RSA', C, text('an SSH host key fingerprint'), {
      description:
        'RSA host key fingerprint of the self-hosted SHELLSHARE server. Needs SVC_SHELLSHARE_HOST.',
    }),
    setting('SVC_SHELLSHARE_FINGERPRINT_ED25519', C, text('an SSH host key fingerprint'), {
      description:
        'ED25519 host key fingerprint of the self-hosted SHELLSHARE server. Needs SVC_SHELLSHARE_HOST.',
    }),
  ],
);
