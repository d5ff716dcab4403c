import { runners } from '../kinds.js';
import { stringMap } from '../values/collections.js';
import { duration } from '../values/duration.js';
import { memorySize } from '../values/memory.js';
import { filePath, namespaceRulesFile } from '../values/path.js';
import { integer, text } from '../values/scalars.js';
import { group, setting } from './define.js';

const K = runners('K');
const MILLICPU = integer({ min: 1, unit: 'millicpu' });

/** Pod defaults, namespaces and resources of the kubernetes runner. */
export const kubernetesRunner = group(
  'Kubernetes runner',
  'The kubernetes runner (Beta) runs each stage as one pod; these settings give pods their defaults and keep repositories out of restricted namespaces.',
  [
    setting('SVC_ANNOTATIONS_DEFAULT', K, stringMap(), {
      description: 'Annotations of every pipeline pod, added to those the pipeline file sets.',
    }),
    setting('SVC_LABELS_DEFAULT', K, stringMap(), {
      description: 'Labels of every pipeline pod, added to those the pipeline file sets.',
    }),
    setting('SVC_IMAGE_CLONE', K, text('an image name'), {
      default: 'svc/git',
      description: 'The image of the clone step (svc builds svc/git itself).',
    }),
    setting('SVC_IMAGE_PLACEHOLDER', K, text('an image name'), {
      default: 'svc/placeholder',
      description: "The placeholder image pod containers start with before their step's image takes over.",
    }),
    setting('SVC_NAMESPACE_DEFAULT', K, text('a Kubernetes namespace, or svc-'), {
      description:
        'The namespace of pipeline resources when the pipeline file names none. The literal value `svc-` creates a namespace for each pipeline execution and deletes it when the pipeline completes.',
    }),
    setting('SVC_NAMESPACE_RULES', K, stringMap(), {
      description:
        'Keeps repositories out of restricted namespaces: <namespace>:<pattern> entries; a pipeline may use a listed namespace only when its repository name matches the pattern.',
    }),
    setting('SVC_NAMESPACE_RULES_FILE', K, namespaceRulesFile, {
      description:
        'The same rules from a YAML file: each key a namespace, each value a list of repository patterns. svc reads and checks the file at start-up.',
    }),
    setting('SVC_NODE_SELECTOR_DEFAULT', K, stringMap(), {
      description: 'The node_selector of pods whose pipeline file sets none.',
    }),
    setting('SVC_POLICY_FILE', K, filePath, {
      description:
        'A policy file loaded at start-up. In a container, mount the file and give the path inside.',
    }),
    setting('SVC_RESOURCE_LIMIT_CPU', K, MILLICPU, {
      description: 'Default CPU limit of every pipeline container, in millicpu (resources.limits.cpu).',
    }),
    setting('SVC_RESOURCE_LIMIT_MEMORY', K, memorySize, {
      description: 'Default memory limit of every pipeline container, e.g. 512MiB (resources.limits.memory).',
    }),
    setting('SVC_RESOURCE_REQUEST_CPU', K, MILLICPU, {
      description:
        'Default CPU request of every step, in millicpu (resources.requests.cpu); at most the limit.',
    }),
    setting('SVC_RESOURCE_REQUEST_MEMORY', K, memorySize, {
      description:
        'Default memory request of every step, e.g. 256MiB (resources.requests.memory); at most the limit.',
    }),
    setting('SVC_STEP_START_TIMEOUT', K, duration(1000), {
      default: 5 * 60_000,
      addition: true,
      description:
        "svc addition: how long a step's container may take to start (scheduling the pod, pulling the image) before the step fails with the last reason Kubernetes gave (Drone's DRONE_ENGINE_CONTAINER_START_TIMEOUT).",
    }),
    setting('SVC_SERVICE_ACCOUNT_DEFAULT', K, text('a Kubernetes service account name'), {
      description: 'The service account of pods whose pipeline file names none.',
    }),
  ],
);
