/*
 * What the kubernetes engine reads of a pod's status (core/v1 PodStatus), and what it means for
 * one step: its container was created with the placeholder image, and the step runs once the
 * container runs (or ran) the step's image.
 */

export interface KubeContainerState {
  waiting?: { reason?: string; message?: string } | null;
  running?: { startedAt?: unknown } | null;
  terminated?: { exitCode?: number; reason?: string; message?: string } | null;
}

export interface KubeContainerStatus {
  name: string;
  image?: string;
  restartCount?: number;
  state?: KubeContainerState | null;
}

export interface KubePod {
  metadata?: { name?: string; resourceVersion?: string; deletionTimestamp?: unknown } | null;
  status?: {
    phase?: string;
    conditions?: { type?: string; status?: string; reason?: string; message?: string }[] | null;
    containerStatuses?: KubeContainerStatus[] | null;
  } | null;
}

/** Where a step's container is. */
export type StepState =
  | { kind: 'waiting'; reason: string; message: string }
  | { kind: 'pulling-failed'; reason: string; message: string }
  | { kind: 'failed'; reason: string; message: string }
  | { kind: 'running' }
  | { kind: 'exited'; exitCode: number; reason: string }
  /** The placeholder ended and no container of the step's image followed (yet). */
  | { kind: 'placeholder-ended'; reason: string; message: string };

/** Waiting reasons that retry on their own (the registry may come back): reported, then timed out. */
const PULL_TROUBLE = new Set(['ErrImagePull', 'ImagePullBackOff']);
/** Waiting reasons that never resolve without a change of the pod: the step fails at once. */
const PERMANENT = new Set([
  'InvalidImageName',
  'ErrImageNeverPull',
  'CreateContainerConfigError',
  'CreateContainerError',
  'RunContainerError',
]);

/** The state of the step whose container is `container` and whose image is `image`. */
export function stepState(pod: KubePod, container: string, image: string): StepState {
  const status = pod.status?.containerStatuses?.find((s) => s.name === container);
  if (status === undefined) return { kind: 'waiting', reason: 'Pending', message: '' };
  const isStep = sameImage(status.image ?? '', image);
  const state = status.state ?? {};
  if (state.terminated) {
    // The placeholder's end (the kubelet stopping it to start the step's image) is no step's end;
    // when nothing follows, the kubelet could not start the step's image (see step-start.ts).
    if (!isStep)
      return {
        kind: 'placeholder-ended',
        reason: state.terminated.reason ?? 'Terminated',
        message: state.terminated.message ?? `exit code ${state.terminated.exitCode ?? 0}`,
      };
    return {
      kind: 'exited',
      exitCode: state.terminated.exitCode ?? 0,
      reason: state.terminated.reason ?? '',
    };
  }
  if (state.running)
    return isStep ? { kind: 'running' } : { kind: 'waiting', reason: 'ContainerCreating', message: '' };
  const reason = state.waiting?.reason ?? 'ContainerCreating';
  const message = state.waiting?.message ?? '';
  if (PERMANENT.has(reason)) return { kind: 'failed', reason, message };
  if (isStep && PULL_TROUBLE.has(reason)) return { kind: 'pulling-failed', reason, message };
  return { kind: 'waiting', reason, message };
}

/** The scheduler's message when the pod cannot be placed on a node; undefined when it can, or is. */
export function unschedulable(pod: KubePod): string | undefined {
  const scheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
  if (scheduled?.status !== 'False' || scheduled.reason !== 'Unschedulable') return undefined;
  return scheduled.message || 'no node can run the pod';
}

/**
 * Whether two image references name the same image, as the kubelet reports them: `alpine`,
 * `alpine:latest` and `docker.io/library/alpine:latest` are one image.
 */
export function sameImage(a: string, b: string): boolean {
  return normalizeImage(a) === normalizeImage(b);
}

export function normalizeImage(reference: string): string {
  let name = reference.trim();
  if (name.startsWith('docker-pullable://')) name = name.slice('docker-pullable://'.length);
  const [withoutDigest = '', digest] = name.split('@');
  const slash = withoutDigest.indexOf('/');
  const first = slash < 0 ? '' : withoutDigest.slice(0, slash);
  const hasRegistry = first.includes('.') || first.includes(':') || first === 'localhost';
  let path = hasRegistry
    ? withoutDigest
    : `docker.io/${slash < 0 ? `library/${withoutDigest}` : withoutDigest}`;
  const lastSlash = path.lastIndexOf('/');
  if (!path.slice(lastSlash + 1).includes(':') && digest === undefined) path += ':latest';
  return digest === undefined ? path : `${path}@${digest}`;
}
