/*
 * The double's view for tests (pods with their Docker containers), the Docker labels it puts on what
 * it creates, and its state directory (volume files), whose leftovers from dead processes are swept.
 */
import { mkdir, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Cluster } from './cluster.js';
import { LABEL_INSTANCE, LABEL_PID, LABEL_POD_UID, LABEL_ROLE, processAlive } from './docker.js';
import type { Kubelet } from './kubelet.js';
import type { ContainerStateWaiting, Pod } from './types.js';

export interface PodView {
  namespace: string;
  name: string;
  uid: string;
  phase: string;
  nodeName: string | undefined;
  /** The sandbox container's Docker id, once it exists. */
  sandbox: string | undefined;
  /** Why the sandbox or a volume could not be set up (the pod then stays ContainerCreating). */
  setupProblem: string | undefined;
  containers: {
    name: string;
    init: boolean;
    /** Docker ids of the instances kept (previous, current), oldest first. */
    dockerIds: string[];
    restartCount: number;
    /** Why the start after an image change failed, when it did (the status does not show it). */
    lastFailure: ContainerStateWaiting | undefined;
  }[];
  volumes: { name: string; kind: string; source: string }[];
}

export function describePods(cluster: Cluster, kubelet: Kubelet): PodView[] {
  return cluster.list<Pod>('pods').map((pod) => {
    const worker = kubelet.worker(pod.metadata.uid ?? '');
    const runtime = worker?.runtime;
    return {
      namespace: pod.metadata.namespace ?? '',
      name: pod.metadata.name ?? '',
      uid: pod.metadata.uid ?? '',
      phase: pod.status.phase,
      nodeName: pod.spec.nodeName,
      sandbox: runtime?.sandbox?.id,
      setupProblem: runtime?.setupProblem,
      containers: [...(runtime?.slots.values() ?? [])].map((slot) => ({
        name: slot.name,
        init: slot.init,
        dockerIds: slot.instances.map((i) => i.dockerId),
        restartCount: slot.restartCount,
        lastFailure: slot.lastFailure,
      })),
      volumes: [...(runtime?.volumes ?? [])].map(([name, v]) => ({ name, kind: v.kind, source: v.source })),
    };
  });
}

export function dockerLabels(
  instance: string,
  pod: Pod,
  role: string,
  container?: string,
): Record<string, string> {
  const { name = '', namespace = '', uid = '' } = pod.metadata;
  return {
    [LABEL_INSTANCE]: instance,
    [LABEL_PID]: String(process.pid),
    [LABEL_POD_UID]: uid,
    [LABEL_ROLE]: role,
    'io.kubernetes.pod.name': name,
    'io.kubernetes.pod.namespace': namespace,
    'io.kubernetes.pod.uid': uid,
    ...(container === undefined ? {} : { 'io.kubernetes.container.name': container }),
  };
}

const PREFIX = 'svc-kubernetes-double-';

/** Creates `<base>/svc-kubernetes-double-<pid>-<random>` after removing those of dead processes. */
export async function prepareStateDir(base: string | undefined, instance: string): Promise<string> {
  const root = base ?? tmpdir();
  for (const entry of await readdir(root).catch(() => [] as string[])) {
    if (!entry.startsWith(PREFIX)) continue;
    const pid = Number(entry.slice(PREFIX.length).split('-')[0]);
    if (!processAlive(pid)) await rm(join(root, entry), { recursive: true, force: true });
  }
  const dir = join(root, `${PREFIX}${instance}`);
  await mkdir(dir, { recursive: true, mode: 0o755 });
  return dir;
}

export async function removeStateDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}
