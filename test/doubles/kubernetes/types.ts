/*
 * The Kubernetes core/v1 objects as they travel on the wire (JSON field names of the API reference), typed
 * only as far as the double reads them. Every object keeps the fields it was given (index signatures), so
 * what a client sends comes back unchanged, as from a real API server.
 */

export type StringMap = Record<string, string>;

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: StringMap;
  annotations?: StringMap;
  [key: string]: unknown;
}

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [key: string]: unknown;
}

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    secretKeyRef?: { name?: string; key: string; optional?: boolean };
    fieldRef?: { fieldPath: string; apiVersion?: string };
    [key: string]: unknown;
  };
}

export interface EnvFromSource {
  prefix?: string;
  secretRef?: { name: string; optional?: boolean };
  [key: string]: unknown;
}

export interface VolumeMount {
  name: string;
  mountPath: string;
  readOnly?: boolean;
  subPath?: string;
  [key: string]: unknown;
}

export interface SecurityContext {
  privileged?: boolean;
  runAsUser?: number;
  runAsGroup?: number;
  [key: string]: unknown;
}

export interface Container {
  name: string;
  image?: string;
  command?: string[];
  args?: string[];
  workingDir?: string;
  env?: EnvVar[];
  envFrom?: EnvFromSource[];
  resources?: { limits?: Record<string, string | number>; requests?: Record<string, string | number> };
  volumeMounts?: VolumeMount[];
  imagePullPolicy?: string;
  securityContext?: SecurityContext;
  [key: string]: unknown;
}

export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

export interface Taint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}

export interface DownwardApiItem {
  path: string;
  fieldRef?: { fieldPath: string; apiVersion?: string };
  mode?: number;
  [key: string]: unknown;
}

export interface Volume {
  name: string;
  emptyDir?: { medium?: string; sizeLimit?: string | number };
  hostPath?: { path: string; type?: string };
  downwardAPI?: { items?: DownwardApiItem[]; defaultMode?: number };
  secret?: {
    secretName?: string;
    items?: { key: string; path: string; mode?: number }[];
    optional?: boolean;
    defaultMode?: number;
  };
  [key: string]: unknown;
}

export interface NodeSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  volumes?: Volume[];
  restartPolicy?: string;
  terminationGracePeriodSeconds?: number;
  activeDeadlineSeconds?: number;
  nodeName?: string;
  nodeSelector?: StringMap;
  affinity?: {
    nodeAffinity?: {
      requiredDuringSchedulingIgnoredDuringExecution?: {
        nodeSelectorTerms: {
          matchExpressions?: NodeSelectorRequirement[];
          matchFields?: NodeSelectorRequirement[];
        }[];
      };
    };
    [key: string]: unknown;
  };
  tolerations?: Toleration[];
  serviceAccountName?: string;
  serviceAccount?: string;
  imagePullSecrets?: { name?: string }[];
  hostAliases?: { ip: string; hostnames?: string[] }[];
  dnsConfig?: { nameservers?: string[]; searches?: string[]; options?: { name: string; value?: string }[] };
  dnsPolicy?: string;
  hostNetwork?: boolean;
  hostname?: string;
  subdomain?: string;
  securityContext?: SecurityContext;
  [key: string]: unknown;
}

export interface ContainerStateWaiting {
  reason: string;
  message?: string;
}

export interface ContainerStateTerminated {
  exitCode: number;
  reason: string;
  message?: string;
  startedAt: string | null;
  finishedAt: string | null;
  containerID?: string;
}

/** Exactly one of the three is set. */
export interface ContainerState {
  waiting?: ContainerStateWaiting;
  running?: { startedAt: string };
  terminated?: ContainerStateTerminated;
}

export interface ContainerStatus {
  name: string;
  state: ContainerState;
  lastState: ContainerState;
  ready: boolean;
  restartCount: number;
  image: string;
  imageID: string;
  containerID?: string;
  started: boolean;
}

export interface PodCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastProbeTime: null;
  lastTransitionTime: string;
  reason?: string;
  message?: string;
}

export interface PodStatus {
  phase: 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';
  conditions?: PodCondition[];
  hostIP?: string;
  hostIPs?: { ip: string }[];
  podIP?: string;
  podIPs?: { ip: string }[];
  startTime?: string;
  initContainerStatuses?: ContainerStatus[];
  containerStatuses?: ContainerStatus[];
  qosClass?: string;
  [key: string]: unknown;
}

export interface Pod extends KubeObject {
  spec: PodSpec;
  status: PodStatus;
}

export interface Secret extends KubeObject {
  type: string;
  data?: StringMap;
  stringData?: StringMap;
  immutable?: boolean;
}

export interface Namespace extends KubeObject {
  spec: { finalizers?: string[] };
  status: { phase: 'Active' | 'Terminating' };
}

/** A Kubernetes `Status` (errors, and the answer to some deletes). */
export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    uid?: string;
    causes?: { reason: string; message: string; field?: string }[];
  };
  code: number;
}
