/*
 * kube-scheduler for the one node. A pod fits when it tolerates the node's NoSchedule/NoExecute taints,
 * its nodeSelector and required node affinity match the node's labels, and its requests fit in what the
 * node's allocatable leaves (effective request = max(sum of containers, largest init container); pods
 * that finished free their share). A pod that does not fit stays Pending with PodScheduled False
 * (Unschedulable) and the scheduler's message; it is tried again when something frees up. A fitting pod
 * is bound: `spec.nodeName` and PodScheduled True, then the kubelet takes it.
 */
import { copy, type Cluster } from './cluster.js';
import { now } from './docker.js';
import { bytes, milliCpu } from './quantity.js';
import type { Container, NodeSelectorRequirement, Pod, PodCondition, StringMap, Taint } from './types.js';

export interface NodeConfig {
  name: string;
  labels: StringMap;
  taints: Taint[];
  allocatable: { cpu: string; memory: string; pods: number };
}

export class Scheduler {
  constructor(
    private readonly cluster: Cluster,
    private readonly node: NodeConfig,
    private readonly bound: (pod: Pod) => void,
  ) {}

  /** Tries every pod that waits for a node, oldest first. */
  scheduleAll(): void {
    for (const pod of this.cluster.list<Pod>('pods')) {
      if (pod.spec.nodeName === undefined && pod.metadata.deletionTimestamp === undefined) this.schedule(pod);
    }
  }

  schedule(pod: Pod): void {
    const reasons = this.unfit(pod);
    const next = copy(pod);
    const others = (pod.status.conditions ?? []).filter((c) => c.type !== 'PodScheduled');
    if (reasons === undefined) {
      next.spec.nodeName = this.node.name;
      next.status.conditions = [...others, condition(pod, 'True')];
      this.bound(this.cluster.put('pods', next));
      return;
    }
    const counted = reasons.list.map((r) => `1 ${r}`).sort();
    const preemption = reasons.resources
      ? 'No preemption victims found for incoming pod'
      : 'Preemption is not helpful for scheduling';
    const message =
      `0/1 nodes are available: ${counted.join(', ')}. ` +
      `preemption: 0/1 nodes are available: 1 ${preemption}.`;
    const previous = pod.status.conditions?.find((c) => c.type === 'PodScheduled');
    if (previous?.status === 'False' && previous.message === message) return;
    next.status.conditions = [...others, condition(pod, 'False', 'Unschedulable', message)];
    this.cluster.put('pods', next);
  }

  /** Why the pod does not fit, in the filter order of the default plugins (taints, affinity, resources). */
  private unfit(pod: Pod): { list: string[]; resources: boolean } | undefined {
    const tolerations = pod.spec.tolerations ?? [];
    for (const taint of this.node.taints) {
      if (taint.effect === 'PreferNoSchedule') continue;
      const tolerated = tolerations.some(
        (t) =>
          (t.effect === undefined || t.effect === '' || t.effect === taint.effect) &&
          (t.operator === 'Exists'
            ? t.key === undefined || t.key === '' || t.key === taint.key
            : t.key === taint.key && (t.value ?? '') === (taint.value ?? '')),
      );
      if (!tolerated) {
        return {
          list: [`node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`],
          resources: false,
        };
      }
    }
    if (!this.matchesNode(pod))
      return { list: ["node(s) didn't match Pod's node affinity/selector"], resources: false };
    const used = this.used(pod);
    const wanted = podRequests(pod);
    const list: string[] = [];
    if (used.pods + 1 > this.node.allocatable.pods) list.push('Too many pods');
    if (wanted.cpu > 0 && used.cpu + wanted.cpu > milliCpu(this.node.allocatable.cpu))
      list.push('Insufficient cpu');
    if (wanted.memory > 0 && used.memory + wanted.memory > bytes(this.node.allocatable.memory)) {
      list.push('Insufficient memory');
    }
    return list.length === 0 ? undefined : { list, resources: true };
  }

  private matchesNode(pod: Pod): boolean {
    const labels = this.node.labels;
    const selector = pod.spec.nodeSelector ?? {};
    if (!Object.entries(selector).every(([key, value]) => labels[key] === value)) return false;
    const terms =
      pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
    if (terms === undefined) return true;
    // Terms are ORed, the requirements of a term ANDed; matchFields only knows metadata.name.
    return terms.some(
      (term) =>
        (term.matchExpressions ?? []).every((r) => requirementMatches(r, labels)) &&
        (term.matchFields ?? []).every((r) => requirementMatches(r, { 'metadata.name': this.node.name })) &&
        ((term.matchExpressions ?? []).length > 0 || (term.matchFields ?? []).length > 0),
    );
  }

  /** What the pods bound to the node take, not counting `except` and pods that finished. */
  private used(except: Pod): { cpu: number; memory: number; pods: number } {
    const total = { cpu: 0, memory: 0, pods: 0 };
    for (const pod of this.cluster.list<Pod>('pods')) {
      if (pod.spec.nodeName !== this.node.name || pod.metadata.uid === except.metadata.uid) continue;
      if (pod.status.phase === 'Succeeded' || pod.status.phase === 'Failed') continue;
      const requests = podRequests(pod);
      total.cpu += requests.cpu;
      total.memory += requests.memory;
      total.pods += 1;
    }
    return total;
  }
}

function requirementMatches(r: NodeSelectorRequirement, labels: StringMap): boolean {
  const has = Object.hasOwn(labels, r.key);
  const value = labels[r.key] ?? '';
  const values = r.values ?? [];
  switch (r.operator) {
    case 'In':
      return has && values.includes(value);
    case 'NotIn':
      return !has || !values.includes(value);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'Gt':
    case 'Lt': {
      const bound = Number(values[0]);
      if (!has || !/^-?\d+$/.test(value)) return false;
      return r.operator === 'Gt' ? Number(value) > bound : Number(value) < bound;
    }
    default:
      return false;
  }
}

/** The pod's effective requests: max(sum over containers, largest init container). */
export function podRequests(pod: Pod): { cpu: number; memory: number } {
  const of = (c: Container) => ({
    cpu: milliCpu(c.resources?.requests?.cpu),
    memory: bytes(c.resources?.requests?.memory),
  });
  const sum = pod.spec.containers
    .map(of)
    .reduce((a, b) => ({ cpu: a.cpu + b.cpu, memory: a.memory + b.memory }), {
      cpu: 0,
      memory: 0,
    });
  for (const init of (pod.spec.initContainers ?? []).map(of)) {
    sum.cpu = Math.max(sum.cpu, init.cpu);
    sum.memory = Math.max(sum.memory, init.memory);
  }
  return sum;
}

function condition(pod: Pod, status: 'True' | 'False', reason?: string, message?: string): PodCondition {
  const previous = pod.status.conditions?.find((c) => c.type === 'PodScheduled');
  return {
    type: 'PodScheduled',
    status,
    lastProbeTime: null,
    lastTransitionTime: previous?.status === status ? previous.lastTransitionTime : now(),
    ...(reason === undefined ? {} : { reason }),
    ...(message === undefined ? {} : { message }),
  };
}
