/*
 * The pod status the kubelet reports, computed from what it knows (pod-runtime.ts): container statuses
 * (exactly one state; `lastState` from the previous instance; image as the runtime reports it), the phase
 * by the kubelet's getPhase rules (Pending until every container has started once; Running while one
 * runs; Succeeded or Failed once all are terminated, final), and the conditions it owns
 * (PodReadyToStartContainers, Initialized, Ready, ContainersReady) next to the scheduler's PodScheduled.
 */
import { parseImage } from './images.js';
import type { ContainerSlot, PodRuntime } from './pod-runtime.js';
import { bytes, milliCpu } from './quantity.js';
import type {
  Container,
  ContainerState,
  ContainerStatus,
  Pod,
  PodCondition,
  PodSpec,
  PodStatus,
} from './types.js';

export function kubeletStatus(pod: Pod, runtime: PodRuntime, now: string): PodStatus {
  const spec = pod.spec;
  const initContainers = spec.initContainers ?? [];
  const defaultReason = initContainers.length > 0 ? 'PodInitializing' : 'ContainerCreating';
  const statusOf = (container: Container) =>
    containerStatus(container, runtime.slots.get(container.name), defaultReason);
  const initStatuses = initContainers.map(statusOf);
  const statuses = spec.containers.map(statusOf);

  const initialized = initContainers.every((c) => succeeded(runtime.slots.get(c.name)));
  const phase = runtime.terminalPhase ?? podPhase(spec, runtime, initialized);
  if (phase === 'Succeeded' || phase === 'Failed') runtime.terminalPhase = phase;

  const completed = phase === 'Succeeded' || phase === 'Failed';
  const unready = statuses.filter((s) => !s.ready).map((s) => s.name);
  const incomplete = initContainers.filter((c) => !succeeded(runtime.slots.get(c.name))).map((c) => c.name);
  const condition = (type: string, ok: boolean, reason?: string, message?: string): PodCondition => {
    const status = ok ? 'True' : 'False';
    const previous = runtime.transitions.get(type);
    const time = previous?.status === status ? previous.time : now;
    runtime.transitions.set(type, { status, time });
    return {
      type,
      status,
      lastProbeTime: null,
      lastTransitionTime: time,
      ...(reason === undefined ? {} : { reason }),
      ...(message === undefined ? {} : { message }),
    };
  };
  const readyReason = completed ? 'PodCompleted' : 'ContainersNotReady';
  const readyMessage = completed ? undefined : `containers with unready status: [${unready.join(' ')}]`;
  const allReady = unready.length === 0 && !completed;
  const conditions: PodCondition[] = [
    condition('PodReadyToStartContainers', runtime.sandbox !== undefined && !completed),
    initialized
      ? condition('Initialized', true, completed && initContainers.length > 0 ? 'PodCompleted' : undefined)
      : condition(
          'Initialized',
          false,
          'ContainersNotInitialized',
          `containers with incomplete status: [${incomplete.join(' ')}]`,
        ),
    allReady ? condition('Ready', true) : condition('Ready', false, readyReason, readyMessage),
    allReady
      ? condition('ContainersReady', true)
      : condition('ContainersReady', false, readyReason, readyMessage),
    // The scheduler's condition; a pod created with spec.nodeName never met the scheduler.
    pod.status.conditions?.find((c) => c.type === 'PodScheduled') ?? condition('PodScheduled', true),
  ];
  const sandbox = runtime.sandbox;
  return {
    phase,
    conditions,
    ...(sandbox === undefined
      ? {}
      : {
          hostIP: sandbox.hostIP,
          hostIPs: [{ ip: sandbox.hostIP }],
          podIP: sandbox.podIP,
          podIPs: [{ ip: sandbox.podIP }],
        }),
    ...(runtime.startTime === undefined ? {} : { startTime: runtime.startTime }),
    ...(initStatuses.length > 0 ? { initContainerStatuses: initStatuses } : {}),
    containerStatuses: statuses,
    qosClass: qosClass(spec),
  };
}

const succeeded = (slot: ContainerSlot | undefined): boolean =>
  slot?.current?.terminated?.exitCode === 0 && !slot.restarting && slot.waiting === undefined;

function containerStatus(
  container: Container,
  slot: ContainerSlot | undefined,
  defaultReason: string,
): ContainerStatus {
  const current = slot?.current;
  const previous = slot?.previous;
  let state: ContainerState;
  let lastState: ContainerState = {};
  if (slot?.running === true && current?.startedAt !== undefined) {
    state = { running: { startedAt: current.startedAt } };
    if (previous?.terminated !== undefined) lastState = { terminated: previous.terminated };
  } else if (slot?.waiting !== undefined) {
    state = { waiting: slot.waiting };
    if (current?.terminated !== undefined) lastState = { terminated: current.terminated };
  } else if (current?.terminated !== undefined) {
    state = { terminated: current.terminated };
    if (previous?.terminated !== undefined) lastState = { terminated: previous.terminated };
  } else {
    state = { waiting: { reason: defaultReason } };
  }
  const specImage = container.image ?? '';
  const parsed = parseImage(specImage);
  const image =
    state.waiting !== undefined || current === undefined
      ? parsed.ok
        ? parsed.normalized
        : specImage
      : current.imageRef;
  const running = state.running !== undefined;
  return {
    name: container.name,
    state,
    lastState,
    ready: running,
    restartCount: slot?.restartCount ?? 0,
    image,
    imageID: current?.imageID ?? '',
    ...(current === undefined ? {} : { containerID: `docker://${current.dockerId}` }),
    started: running,
  };
}

/** The kubelet's getPhase. */
function podPhase(spec: PodSpec, runtime: PodRuntime, initialized: boolean): PodStatus['phase'] {
  const restartPolicy = spec.restartPolicy ?? 'Always';
  for (const init of spec.initContainers ?? []) {
    const slot = runtime.slots.get(init.name);
    const exit = slot?.current?.terminated?.exitCode;
    if (restartPolicy === 'Never' && exit !== undefined && exit !== 0 && !slot?.restarting) return 'Failed';
  }
  if (!initialized) return 'Pending';
  let running = 0;
  let waiting = 0;
  let stopped = 0;
  let succeededCount = 0;
  for (const container of spec.containers) {
    const slot = runtime.slots.get(container.name);
    const current = slot?.current;
    if (slot === undefined) {
      waiting += 1;
    } else if (slot.running || slot.restarting) {
      running += 1;
    } else if (current?.terminated !== undefined) {
      stopped += 1;
      if (current.terminated.exitCode === 0 && slot.waiting === undefined) succeededCount += 1;
    } else {
      waiting += 1;
    }
  }
  if (waiting > 0) return 'Pending';
  if (running > 0) return 'Running';
  if (stopped > 0) {
    if (restartPolicy === 'Always') return 'Running';
    if (stopped === succeededCount) return 'Succeeded';
    return restartPolicy === 'Never' ? 'Failed' : 'Running';
  }
  return 'Pending';
}

/** GetPodQOS for cpu and memory. */
export function qosClass(spec: PodSpec): string {
  const containers = [...(spec.initContainers ?? []), ...spec.containers];
  let any = false;
  let guaranteed = true;
  for (const c of containers) {
    const { limits = {}, requests = {} } = c.resources ?? {};
    for (const resource of ['cpu', 'memory'] as const) {
      const measure = resource === 'cpu' ? milliCpu : bytes;
      const limit = limits[resource] === undefined ? undefined : measure(limits[resource]);
      const request = requests[resource] === undefined ? undefined : measure(requests[resource]);
      if ((limit ?? 0) > 0 || (request ?? 0) > 0) any = true;
      if (limit === undefined || limit === 0 || (request !== undefined && request !== limit))
        guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}
