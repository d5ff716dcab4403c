import type { Diagnostics } from '../diagnostics.js';
import type { Pipeline, Step } from '../types.js';

const WHY =
  'not allowed in an untrusted repository, because it reaches outside the build (the host, its devices or its network); remove it, or ask an administrator to mark the repository trusted';

/** The step settings an untrusted repository may not use, and whether a step uses each. */
const STEP_RULES: readonly { key: string; uses: (step: Step) => boolean }[] = [
  { key: 'privileged', uses: (step) => step.privileged },
  { key: 'devices', uses: (step) => step.devices.length > 0 },
  { key: 'network_mode', uses: (step) => step.networkMode !== '' },
  { key: 'dns', uses: (step) => step.dns.length > 0 },
  { key: 'dns_search', uses: (step) => step.dnsSearch.length > 0 },
  { key: 'extra_hosts', uses: (step) => step.extraHosts.length > 0 },
  { key: 'shm_size', uses: (step) => step.resources.shmSize > 0 },
];

/**
 * The pipeline settings of kubernetes pipelines an untrusted repository may not use: a service
 * account carries the cluster's credentials, host aliases and DNS settings redirect the network.
 */
const PIPELINE_RULES: readonly { key: string; uses: (pipeline: Pipeline) => boolean }[] = [
  { key: 'service_account_name', uses: (p) => p.kubernetes.serviceAccountName !== '' },
  { key: 'host_aliases', uses: (p) => p.kubernetes.hostAliases.length > 0 },
  {
    key: 'dns_config',
    uses: (p) =>
      p.kubernetes.dnsConfig.nameservers.length +
        p.kubernetes.dnsConfig.searches.length +
        p.kubernetes.dnsConfig.options.length >
      0,
  },
];

/** Names of what an untrusted repository may not use, for documentation and messages. */
export const UNTRUSTED_FORBIDDEN = [
  ...STEP_RULES.map((rule) => rule.key),
  ...PIPELINE_RULES.map((rule) => rule.key),
  'host volumes',
  'in-memory temp volumes',
] as const;

/** Errors for every use of a setting that only trusted repositories may use. */
export function checkUntrusted(pipeline: Pipeline, diagnostics: Diagnostics): void {
  for (const rule of PIPELINE_RULES) {
    if (rule.uses(pipeline))
      diagnostics.error(pipeline.locations[rule.key] ?? pipeline.position, rule.key, WHY);
  }
  for (const step of [...pipeline.services, ...pipeline.steps]) {
    for (const rule of STEP_RULES) {
      if (!rule.uses(step)) continue;
      diagnostics.error(step.locations[rule.key] ?? step.position, `${step.field}.${rule.key}`, WHY);
    }
  }
  for (const volume of pipeline.volumes) {
    if (volume.kind === 'host') {
      diagnostics.error(
        volume.locations.host ?? volume.position,
        `${volume.field}.host`,
        `a host volume is ${WHY}`,
      );
    } else if (volume.medium === 'memory') {
      diagnostics.error(
        volume.locations.temp ?? volume.position,
        `${volume.field}.temp.medium`,
        `an in-memory temp volume is ${WHY}`,
      );
    }
  }
}
