import type { ExecPod, ExecSpec, PodAmounts } from '../../core/engine.js';
import type { MatchFacts } from '../../pipeline/match/conditions.js';
import type { Pipeline, Step } from '../../pipeline/types.js';
import { namespaceRefusal, type NamespaceRules } from './namespace-rules.js';
import { selectPolicy, type Policy } from './policy.js';

/** The namespace value that gives each pipeline execution a namespace of its own (SVC_NAMESPACE_DEFAULT). */
export const PER_STAGE_NAMESPACE = 'svc-';

/** The kubernetes runner's pod defaults (SVC_* settings of kind K). */
export interface PodDefaults {
  /** SVC_NAMESPACE_DEFAULT; empty for Kubernetes' `default`. */
  namespace: string;
  labels: Readonly<Record<string, string>>;
  annotations: Readonly<Record<string, string>>;
  nodeSelector: Readonly<Record<string, string>>;
  serviceAccount: string;
  /** SVC_RESOURCE_REQUEST_* and SVC_RESOURCE_LIMIT_* (0: none). */
  requests: PodAmounts;
  limits: PodAmounts;
  policies: readonly Policy[];
  rules: NamespaceRules;
}

/**
 * The pod of a `type: kubernetes` stage, as Drone's Kubernetes runner composes it: the pipeline's
 * fields over the runner's defaults, then the first matching policy over both (its namespace, node
 * selector, service account and tolerations replace; its labels and annotations add; its resources
 * win). A pipeline naming a namespace that SVC_NAMESPACE_RULES[_FILE] keep from its repository is
 * refused, with the rule and the line of the field.
 */
export function planPod(
  pipeline: Pipeline,
  spec: ExecSpec,
  facts: MatchFacts,
  defaults: PodDefaults,
): { ok: true; spec: ExecSpec } | { ok: false; error: string } {
  const k8s = pipeline.kubernetes;
  const asked = k8s.metadata.namespace;
  if (asked !== '') {
    const refusal = namespaceRefusal(defaults.rules, asked, facts.repo);
    if (refusal !== undefined) {
      const at = pipeline.locations['metadata.namespace'] ?? pipeline.locations.metadata ?? pipeline.position;
      return { ok: false, error: `line ${at.line}, column ${at.column}: ${refusal}` };
    }
  }
  const policy = selectPolicy(defaults.policies, facts);
  const namespace = policy?.namespace || asked || defaults.namespace || 'default';
  const byName = new Map<string, Step>(
    [...pipeline.services, ...pipeline.steps].map((step) => [step.name, step]),
  );
  const resources: ExecPod['resources'] = {};
  for (const step of spec.steps) {
    const own = byName.get(step.name)?.resources;
    const limits = {
      cpu: smaller(own?.limits.cpu ?? 0, policy?.limit.cpu || defaults.limits.cpu),
      memory: smaller(own?.limits.memory ?? 0, policy?.limit.memory || defaults.limits.memory),
    };
    const requests = {
      cpu: capped(policy?.request.cpu || own?.requests.cpu || defaults.requests.cpu, limits.cpu),
      memory: capped(
        policy?.request.memory || own?.requests.memory || defaults.requests.memory,
        limits.memory,
      ),
    };
    resources[step.id] = { requests, limits };
  }
  const pod: ExecPod = {
    namespace: namespace === PER_STAGE_NAMESPACE ? '' : namespace,
    perStage: namespace === PER_STAGE_NAMESPACE,
    labels: { ...defaults.labels, ...k8s.metadata.labels, ...policy?.labels },
    annotations: { ...defaults.annotations, ...k8s.metadata.annotations, ...policy?.annotations },
    nodeSelector: {
      // A platform the pipeline asks for places the pod on such nodes (the well-known node labels).
      ...(pipeline.platform.os === '' ? {} : { 'kubernetes.io/os': pipeline.platform.os }),
      ...(pipeline.platform.arch === '' ? {} : { 'kubernetes.io/arch': pipeline.platform.arch }),
      ...(policy?.nodeSelector ??
        (Object.keys(k8s.nodeSelector).length > 0 ? k8s.nodeSelector : defaults.nodeSelector)),
    },
    tolerations:
      policy !== undefined && policy.tolerations.length > 0
        ? policy.tolerations.map((t) => ({ ...t }))
        : k8s.tolerations.map((t) => ({ ...t })),
    serviceAccountName: policy?.serviceAccount || k8s.serviceAccountName || defaults.serviceAccount,
    dnsConfig: {
      nameservers: [...k8s.dnsConfig.nameservers],
      searches: [...k8s.dnsConfig.searches],
      options: k8s.dnsConfig.options.map((o) => ({ ...o })),
    },
    hostAliases: k8s.hostAliases.map((alias) => ({ ip: alias.ip, hostnames: [...alias.hostnames] })),
    resources,
  };
  return { ok: true, spec: { ...spec, pod } };
}

/** The smaller of two amounts where 0 means none. */
function smaller(a: number, b: number): number {
  if (a <= 0) return b;
  if (b <= 0) return a;
  return Math.min(a, b);
}

/** A request never above the limit (Kubernetes refuses such a pod). */
function capped(request: number, limit: number): number {
  return limit > 0 && request > limit ? limit : request;
}
