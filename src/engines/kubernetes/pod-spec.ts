import type {
  V1Container,
  V1EnvVar,
  V1Pod,
  V1Secret,
  V1Volume,
  V1VolumeMount,
} from '@kubernetes/client-node';
import type { ExecPod, ExecSpec, ExecStep, PullPolicy } from '../../core/engine.js';
import { devicePaths, STATUS_MOUNT } from './mount-points.js';
import { cacheMounts, cacheVolumeList, filesContainer } from './pod-files.js';

/** Labels of everything the kubernetes engine creates: leftovers are found by owner. */
export const OWNER_LABEL = 'io.svc.owner';
export const RUN_LABEL = 'io.svc.run';

/** The variables a step reads again from the status file when it starts (they change during a stage). */
export const LIVE_VARIABLES = [
  'DRONE_BUILD_STATUS',
  'DRONE_STAGE_STATUS',
  'DRONE_FAILED_STEPS',
  'SVC_BUILD_STATUS',
  'SVC_STAGE_STATUS',
  'SVC_FAILED_STEPS',
] as const;
const WORKSPACE_VOLUME = 'svc-workspace';
const STATUS_VOLUME = 'svc-status';

/** What the pod of a stage is made of, besides the spec. */
export interface PodNames {
  pod: string;
  namespace: string;
  /** The Secret holding the steps' secrets (named like the pod). */
  secret: string;
  /** The image pull Secret, when some step needs registry credentials. */
  pullSecret: string | undefined;
  placeholder: string;
  labels: Record<string, string>;
  /** The image of the files container (pod-files.ts); undefined when the stage moves no files. */
  filesImage: string | undefined;
}

/** A DNS-1123 label made of `text`: lower case, digits and dashes, at most 63 characters. */
export function dnsLabel(text: string, max = 63): string {
  const label = text
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, max)
    .replace(/-+$/, '');
  return label === '' ? 'x' : label;
}

/** A label value Kubernetes accepts: at most 63 of `[A-Za-z0-9._-]`, alphanumeric at both ends. */
export function labelValue(text: string): string {
  return text
    .replace(/[^A-Za-z0-9._-]+/g, '.')
    .slice(0, 63)
    .replace(/^[^A-Za-z0-9]+/, '')
    .replace(/[^A-Za-z0-9]+$/, '');
}

/** Each step's container name: its position and its name, unique and valid. */
export function containerName(spec: ExecSpec, step: ExecStep): string {
  // By id: the runner core hands engines copies of a spec's steps (with the status variables).
  const index = spec.steps.findIndex((candidate) => candidate.id === step.id);
  return dnsLabel(`s${index + 1}-${step.name}`);
}

/** The key of a step's secret in the stage's Secret. */
function secretKey(container: string, env: string): string {
  return `${container}.${env}`;
}

/** The stage's Secret: every secret of every step, never in the pod spec itself. */
export function stepSecret(spec: ExecSpec, names: PodNames): V1Secret {
  const stringData: Record<string, string> = {};
  for (const step of spec.steps) {
    const container = containerName(spec, step);
    for (const secret of step.secrets) stringData[secretKey(container, secret.env)] = secret.data;
  }
  return { metadata: { name: names.secret, labels: names.labels }, type: 'Opaque', stringData };
}

/** The image pull Secret of the steps' registry credentials (`kubernetes.io/dockerconfigjson`); undefined without any. */
export function pullSecret(spec: ExecSpec, names: PodNames): V1Secret | undefined {
  const auths: Record<string, { auth: string }> = {};
  for (const step of spec.steps) {
    if (step.auth === undefined) continue;
    auths[step.auth.address] = {
      auth: Buffer.from(`${step.auth.username}:${step.auth.password}`).toString('base64'),
    };
  }
  if (names.pullSecret === undefined || Object.keys(auths).length === 0) return undefined;
  return {
    metadata: { name: names.pullSecret, labels: names.labels },
    type: 'kubernetes.io/dockerconfigjson',
    stringData: { '.dockerconfigjson': JSON.stringify({ auths }) },
  };
}

/**
 * The pod of a stage: one container per step (clone, services, steps), each created with the
 * placeholder image and the step's command, variables, mounts, resources and security context;
 * a shared `emptyDir` workspace; the pod's annotations as a file in every container (the status
 * variables that change while the stage runs); services reachable by name on localhost.
 */
export function stagePod(spec: ExecSpec, names: PodNames, annotations: Record<string, string>): V1Pod {
  const pod: ExecPod = spec.pod ?? emptyPod();
  const services = spec.steps.filter((step) => step.detach).map((step) => step.name);
  const hostAliases = [
    ...(services.length === 0 ? [] : [{ ip: '127.0.0.1', hostnames: services.filter(isHostName) }]),
    ...pod.hostAliases,
    ...spec.steps.flatMap((step) => step.extraHosts.map(extraHostAlias)).filter((a) => a !== undefined),
  ].filter((alias) => alias.hostnames.length > 0);
  const nameservers = [...pod.dnsConfig.nameservers, ...spec.steps.flatMap((step) => step.dns)];
  const searches = [...pod.dnsConfig.searches, ...spec.steps.flatMap((step) => step.dnsSearch)];
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: names.pod, namespace: names.namespace, labels: names.labels, annotations },
    spec: {
      restartPolicy: 'Never',
      // The placeholder ends at once on SIGTERM; steps being stopped get a short grace.
      terminationGracePeriodSeconds: 5,
      ...(pod.serviceAccountName === '' ? {} : { serviceAccountName: pod.serviceAccountName }),
      ...(Object.keys(pod.nodeSelector).length === 0 ? {} : { nodeSelector: pod.nodeSelector }),
      ...(pod.tolerations.length === 0
        ? {}
        : {
            tolerations: pod.tolerations.map((t) => ({
              ...(t.key === '' ? {} : { key: t.key }),
              ...(t.operator === '' ? {} : { operator: t.operator }),
              ...(t.value === '' ? {} : { value: t.value }),
              ...(t.effect === '' ? {} : { effect: t.effect }),
              ...(t.tolerationSeconds === 0 ? {} : { tolerationSeconds: t.tolerationSeconds }),
            })),
          }),
      ...(hostAliases.length === 0 ? {} : { hostAliases }),
      ...(nameservers.length + searches.length + pod.dnsConfig.options.length === 0
        ? {}
        : {
            dnsConfig: {
              ...(nameservers.length === 0 ? {} : { nameservers }),
              ...(searches.length === 0 ? {} : { searches }),
              ...(pod.dnsConfig.options.length === 0 ? {} : { options: pod.dnsConfig.options }),
            },
          }),
      // Named only when some step has registry credentials (the engine's setup decides).
      ...(names.pullSecret === undefined ? {} : { imagePullSecrets: [{ name: names.pullSecret }] }),
      volumes: volumes(spec, names),
      containers: [
        ...spec.steps.map((step) => container(spec, step, names, pod)),
        ...(names.filesImage === undefined
          ? []
          : [filesContainer(spec, names.filesImage, WORKSPACE_VOLUME, volumeName)]),
      ],
    },
  };
}

function container(spec: ExecSpec, step: ExecStep, names: PodNames, pod: ExecPod): V1Container {
  const name = containerName(spec, step);
  const env: V1EnvVar[] = [
    ...Object.entries(step.envs).map(([key, value]) => ({ name: key, value })),
    ...step.secrets.map((secret) => ({
      name: secret.env,
      valueFrom: { secretKeyRef: { name: names.secret, key: secretKey(name, secret.env), optional: true } },
    })),
    { name: 'KUBERNETES_NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
  ];
  const resources = pod.resources[step.id];
  const amounts = (a: { cpu: number; memory: number } | undefined): Record<string, string> | undefined => {
    if (a === undefined || (a.cpu <= 0 && a.memory <= 0)) return undefined;
    return {
      ...(a.cpu > 0 ? { cpu: `${a.cpu}m` } : {}),
      ...(a.memory > 0 ? { memory: String(a.memory) } : {}),
    };
  };
  const requests = amounts(resources?.requests);
  const limits =
    amounts(resources?.limits) ?? (step.memLimit > 0 ? { memory: String(step.memLimit) } : undefined);
  // Numeric ids only: Kubernetes cannot look a user name up in the image.
  const [, uid, gid] = /^(\d*)(?::(\d+))?$/.exec(step.user) ?? [];
  const mounts: V1VolumeMount[] = [
    { name: WORKSPACE_VOLUME, mountPath: spec.workspace.base },
    { name: STATUS_VOLUME, mountPath: STATUS_MOUNT, readOnly: true },
    ...step.mounts.map((mount) => ({
      name: volumeName(mount.name),
      mountPath: mount.path,
      ...(mount.readOnly === true ? { readOnly: true } : {}),
    })),
    ...step.devices.map((device, index) => ({
      name: `${name.slice(0, 50)}-dev${index}`,
      mountPath: devicePaths(device).container,
    })),
    ...(names.filesImage === undefined ? [] : cacheMounts(spec, step)),
  ];
  return {
    name,
    image: names.placeholder,
    imagePullPolicy: pullPolicy(step.pull),
    ...(step.entrypoint.length === 0 ? {} : { command: entrypointOf(step) }),
    ...(step.command.length === 0 ? {} : { args: withLiveStatus(step) }),
    ...(step.workingDir === '' ? {} : { workingDir: step.workingDir }),
    env,
    securityContext: {
      privileged: step.privileged,
      ...(uid === undefined || uid === '' ? {} : { runAsUser: Number(uid) }),
      ...(gid === undefined ? {} : { runAsGroup: Number(gid) }),
    },
    ...(requests === undefined && limits === undefined
      ? {}
      : {
          resources: {
            ...(requests === undefined ? {} : { requests }),
            ...(limits === undefined ? {} : { limits }),
          },
        }),
    volumeMounts: mounts,
  };
}

/**
 * A `commands` step's script, led by lines that load the status variables from the status file:
 * Kubernetes cannot change a container's variables, so a step that starts after a failure reads
 * `DRONE_BUILD_STATUS=failure` there (plugins read the file themselves, as with Drone).
 */
function withLiveStatus(step: ExecStep): string[] {
  const [shell, flag] = step.entrypoint;
  const isPosixScript = shell !== undefined && flag === '-c' && !/(powershell|pwsh)(\.exe)?$/i.test(shell);
  if (!isPosixScript || step.command.length !== 1) return step.command;
  const names = LIVE_VARIABLES.join('|');
  const prelude = [
    `if [ -r ${STATUS_MOUNT}/env ]; then`,
    `  while IFS= read -r svc_line; do case "$svc_line" in ${names.replaceAll('|', '=*|')}=*) eval "export $svc_line" ;; esac; done < ${STATUS_MOUNT}/env`,
    '  unset svc_line',
    'fi',
  ].join('\n');
  return [`${prelude}\n${step.command[0] ?? ''}`];
}

/**
 * The container's command for a step's entrypoint. Shells (`commands` steps) are what the placeholder
 * image provides, so they go as they are. Any other program would not exist in the placeholder, whose
 * container would then fail to start, and a kubelet does not start an ended container again under
 * restartPolicy Never (Drone's Kubernetes runner fails such steps): it is started through the step
 * image's /bin/sh instead, which the placeholder answers by waiting.
 */
function entrypointOf(step: ExecStep): string[] {
  const [program = ''] = step.entrypoint;
  if (PLACEHOLDER_PROGRAMS.has(program)) return step.entrypoint;
  return ['/bin/sh', '-c', 'exec "$@"', 'sh', ...step.entrypoint];
}

/** The programs svc/placeholder holds (each one waits): see images/placeholder. */
const PLACEHOLDER_PROGRAMS = new Set([
  '/bin/sh',
  'sh',
  '/bin/bash',
  'bash',
  '/bin/ash',
  'ash',
  '/usr/bin/env',
]);

function volumes(spec: ExecSpec, names: PodNames): V1Volume[] {
  const list: V1Volume[] = [
    { name: WORKSPACE_VOLUME, emptyDir: {} },
    {
      name: STATUS_VOLUME,
      downwardAPI: { items: [{ path: 'env', fieldRef: { fieldPath: 'metadata.annotations' } }] },
    },
  ];
  for (const volume of spec.volumes) {
    if (volume.kind === 'temp') {
      list.push({
        name: volumeName(volume.name),
        emptyDir: {
          ...(volume.medium === 'memory' ? { medium: 'Memory' } : {}),
          ...(volume.sizeLimit > 0 ? { sizeLimit: String(volume.sizeLimit) } : {}),
        },
      });
    } else {
      list.push({
        name: volumeName(volume.name),
        hostPath: { path: volume.path, type: 'DirectoryOrCreate' },
      });
    }
  }
  for (const step of spec.steps) {
    const name = containerName(spec, step);
    step.devices.forEach((device, index) =>
      list.push({ name: `${name.slice(0, 50)}-dev${index}`, hostPath: { path: devicePaths(device).host } }),
    );
  }
  if (names.filesImage !== undefined) list.push(...cacheVolumeList(spec));
  return list;
}

export function volumeName(name: string): string {
  return dnsLabel(`v-${name}`);
}

function pullPolicy(pull: PullPolicy): string {
  return pull === 'always' ? 'Always' : pull === 'never' ? 'Never' : 'IfNotPresent';
}

function isHostName(name: string): boolean {
  return /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(name) && name.length <= 253;
}

/** `host:ip` of a step's extra_hosts as a pod host alias. */
function extraHostAlias(entry: string): { ip: string; hostnames: string[] } | undefined {
  const at = entry.indexOf(':');
  if (at <= 0) return undefined;
  return { ip: entry.slice(at + 1), hostnames: [entry.slice(0, at)] };
}

function emptyPod(): ExecPod {
  return {
    namespace: 'default',
    perStage: false,
    labels: {},
    annotations: {},
    nodeSelector: {},
    tolerations: [],
    serviceAccountName: '',
    dnsConfig: { nameservers: [], searches: [], options: [] },
    hostAliases: [],
    resources: {},
  };
}
