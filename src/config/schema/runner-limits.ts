import { runners } from '../kinds.js';
import { list, stringMap } from '../values/collections.js';
import { buildEvent, repoPattern } from '../values/entries.js';
import { boolean, integer, text } from '../values/scalars.js';
import { group, setting } from './define.js';

const CAPACITY = integer({ min: 1 });
const CAPACITY_TEXT =
  'How many pipelines the runner executes at once. On kubernetes it does not limit the pipelines on one node, on ssh not those on one remote host.';

/** Which builds a runner takes, its name and labels, and how much it runs at once. */
export const runnerLimits = group(
  'Runners: allow-lists, naming, capacity',
  'Which builds a runner accepts, how it is named and labelled, and how much it runs at once.',
  [
    setting('SVC_LIMIT_EVENTS', runners('C', 'J', 'V', 'K'), list(buildEvent), {
      description: 'Only builds of these events are processed, e.g. push,tag.',
    }),
    setting('SVC_LIMIT_REPOS', runners('C', 'J', 'V', 'K'), list(repoPattern), {
      description: 'Only builds of matching repositories are processed: <owner>/<name> or <owner>/* entries.',
    }),
    setting('SVC_LIMIT_TRUSTED', runners('C', 'J', 'V', 'K'), boolean, {
      description: 'When true, only builds of trusted repositories are processed.',
    }),
    setting('SVC_RUNNER_NAME', runners('C', 'V', 'K', 'R'), text('a name unique among the runners'), {
      defaultDoc: "none: the machine's host name",
      description:
        "The runner's name as the server records it, so that a build can be traced back to the runner that ran it.",
    }),
    setting('SVC_RUNNER_LABELS', runners('C', 'R'), stringMap(), {
      description:
        'Labels that route pipelines to this runner: a pipeline whose node labels match runs here. The spec lists it as coming soon for the ssh runner; svc honours it there too.',
    }),
    setting('SVC_RUNNER_CAPACITY', runners('C', 'V'), CAPACITY, { default: 2, description: CAPACITY_TEXT }),
    setting('SVC_RUNNER_CAPACITY', runners('K', 'R'), CAPACITY, {
      defaultDoc: 'none: no limit',
      description: CAPACITY_TEXT,
    }),
    setting('SVC_RUNNER_MAX_PROCS', runners('C', 'J', 'V', 'K', 'R'), integer({ min: 1 }), {
      defaultDoc: 'none: no limit',
      description:
        'How many steps run at once: within one pipeline on docker, nomad, vm and kubernetes; across all pipelines on ssh.',
    }),
  ],
);
