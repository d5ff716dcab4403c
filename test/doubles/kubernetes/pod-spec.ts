/*
 * What the API server does to a pod before storing it: decoding checks (a wrongly typed field is a 400,
 * as the JSON decoder's error), defaulting (SetDefaults_Pod and friends, plus the DefaultTolerationSeconds
 * and ServiceAccount admission plug-ins) and create validation (the ValidatePodCreate rules a CI runner
 * can trip over). Messages follow the apiserver's field errors.
 */
import { badRequest, FieldError } from './errors.js';
import { labelProblems, validateLabelsAndAnnotations, validateName } from './names.js';
import { milliCpu, parseQuantity, QUANTITY_PATTERN, bytes } from './quantity.js';
import type { Container, Pod, Toleration } from './types.js';

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Throws the API server's 400 when the body cannot be decoded into a Pod (wrong JSON types). */
export function checkPodShape(body: unknown): asserts body is Pod {
  const fail = (path: string, got: unknown, want: string) =>
    badRequest(
      `Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal ${jsonType(got)} into Go struct ` +
        `field ${path} of type ${want}`,
    );
  if (!isObject(body)) throw badRequest("Object 'Kind' is missing in request body");
  const metadata = body.metadata ?? {};
  if (!isObject(metadata)) throw fail('Pod.metadata', metadata, 'v1.ObjectMeta');
  for (const map of ['labels', 'annotations'] as const) {
    const value = metadata[map];
    if (
      value !== undefined &&
      (!isObject(value) || !Object.values(value).every((v) => typeof v === 'string'))
    ) {
      throw fail(`ObjectMeta.metadata.${map}`, value, 'map[string]string');
    }
  }
  const spec = body.spec;
  if (!isObject(spec)) throw fail('Pod.spec', spec, 'v1.PodSpec');
  for (const list of ['containers', 'initContainers'] as const) {
    const containers = spec[list] ?? [];
    if (!Array.isArray(containers) || !containers.every(isObject)) {
      throw fail(`PodSpec.spec.${list}`, containers, '[]v1.Container');
    }
    for (const container of containers) {
      for (const field of ['name', 'image', 'workingDir', 'imagePullPolicy'] as const) {
        if (container[field] !== undefined && typeof container[field] !== 'string') {
          throw fail(`Container.spec.${list}.${field}`, container[field], 'string');
        }
      }
      for (const field of ['command', 'args'] as const) {
        const value = container[field];
        if (value !== undefined && (!Array.isArray(value) || !value.every((v) => typeof v === 'string'))) {
          throw fail(`Container.spec.${list}.${field}`, value, '[]string');
        }
      }
      const env = container.env ?? [];
      if (!Array.isArray(env) || !env.every((e) => isObject(e) && typeof (e.value ?? '') === 'string')) {
        throw fail(`Container.spec.${list}.env`, env, '[]v1.EnvVar');
      }
    }
  }
  for (const list of ['volumes', 'tolerations', 'imagePullSecrets', 'hostAliases'] as const) {
    const value = spec[list] ?? [];
    if (!Array.isArray(value) || !value.every(isObject)) throw fail(`PodSpec.spec.${list}`, value, 'array');
  }
}

function jsonType(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'object' : typeof value;
}

/** Always for `:latest` or no tag (and no digest), else IfNotPresent: SetDefaults_Container. */
export function defaultPullPolicy(image: string): string {
  if (image.includes('@')) return 'IfNotPresent';
  const lastPart = image.slice(image.lastIndexOf('/') + 1);
  const colon = lastPart.lastIndexOf(':');
  return colon < 0 || lastPart.slice(colon + 1) === 'latest' ? 'Always' : 'IfNotPresent';
}

/** Applies the API server's defaults in place (the body is already a private copy). */
export function applyPodDefaults(pod: Pod): void {
  const spec = pod.spec;
  spec.restartPolicy ??= 'Always';
  spec.terminationGracePeriodSeconds ??= 30;
  spec.dnsPolicy ??= 'ClusterFirst';
  spec.schedulerName ??= 'default-scheduler';
  spec.securityContext ??= {};
  spec.enableServiceLinks ??= true;
  spec.priority ??= 0;
  spec.preemptionPolicy ??= 'PreemptLowerPriority';
  spec.serviceAccountName ??= spec.serviceAccount ?? 'default';
  spec.serviceAccount = spec.serviceAccountName;
  for (const container of [...(spec.initContainers ?? []), ...spec.containers]) defaultContainer(container);
  for (const volume of spec.volumes ?? []) {
    if (volume.downwardAPI !== undefined) volume.downwardAPI.defaultMode ??= 0o644;
    if (volume.secret !== undefined) volume.secret.defaultMode ??= 0o644;
    if (volume.hostPath !== undefined) volume.hostPath.type ??= '';
  }
}

function defaultContainer(container: Container): void {
  container.imagePullPolicy ??= defaultPullPolicy(container.image ?? '');
  container.terminationMessagePath ??= '/dev/termination-log';
  container.terminationMessagePolicy ??= 'File';
  container.resources ??= {};
  const { limits, requests } = container.resources;
  // Requests default to the limits that are set (SetDefaults_ResourceList via defaultRequests).
  if (limits !== undefined) {
    container.resources.requests = { ...limits, ...requests };
  }
}

/** The NoExecute tolerations DefaultTolerationSeconds adds to every pod at creation. */
export function addDefaultTolerations(pod: Pod): void {
  const tolerations: Toleration[] = pod.spec.tolerations ?? [];
  for (const key of ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable']) {
    if (!tolerations.some((t) => t.key === key || (t.key === undefined && t.operator === 'Exists'))) {
      tolerations.push({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 });
    }
  }
  pod.spec.tolerations = tolerations;
}

const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];
const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];
const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];
const VOLUME_TYPES = [
  ...['emptyDir', 'hostPath', 'downwardAPI', 'secret', 'configMap', 'persistentVolumeClaim', 'projected'],
  ...['nfs', 'csi', 'ephemeral', 'image', 'iscsi', 'rbd', 'cephfs', 'fc', 'azureFile', 'gitRepo'],
];

const supported = (values: string[]) => `supported values: ${values.map((v) => `"${v}"`).join(', ')}`;

/** The fieldRef paths a downwardAPI volume takes, and those an environment variable takes. */
const VOLUME_FIELDS = [
  'metadata.annotations',
  'metadata.labels',
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
];
const ENV_FIELDS = [
  ...['metadata.name', 'metadata.namespace', 'metadata.uid', 'spec.nodeName', 'spec.serviceAccountName'],
  ...['status.hostIP', 'status.hostIPs', 'status.podIP', 'status.podIPs'],
];
/** `metadata.labels['key']` and `metadata.annotations['key']` are accepted by both. */
const SUBSCRIPTED = /^metadata\.(labels|annotations)\['.+'\]$/;

function checkFieldPath(
  path: string | undefined,
  allowed: string[],
  field: string,
  errors: FieldError[],
): void {
  if (path === undefined || path === '') errors.push(new FieldError(field, 'Required', ''));
  else if (!SUBSCRIPTED.test(path) && !allowed.includes(path)) {
    errors.push(new FieldError(field, 'NotSupported', supported(allowed), path));
  }
}

/** The field errors of a pod to create (defaults applied first). */
export function validatePodCreate(pod: Pod): FieldError[] {
  const errors = [...validateName(pod.metadata, 'subdomain'), ...validateLabelsAndAnnotations(pod.metadata)];
  const spec = pod.spec;
  const volumeNames = new Set<string>();
  (spec.volumes ?? []).forEach((volume, i) => {
    const field = `spec.volumes[${i}]`;
    if (typeof volume.name !== 'string' || volume.name === '') {
      errors.push(new FieldError(`${field}.name`, 'Required', ''));
    } else {
      for (const p of labelProblems(volume.name))
        errors.push(new FieldError(`${field}.name`, 'Invalid', p, volume.name));
      if (volumeNames.has(volume.name))
        errors.push(new FieldError(`${field}.name`, 'Duplicate', '', volume.name));
      volumeNames.add(volume.name);
    }
    (volume.downwardAPI?.items ?? []).forEach((item, j) => {
      if (item.fieldRef !== undefined) {
        checkFieldPath(
          item.fieldRef.fieldPath,
          VOLUME_FIELDS,
          `${field}.downwardAPI.items[${j}].fieldRef.fieldPath`,
          errors,
        );
      }
    });
    const types = VOLUME_TYPES.filter((t) => volume[t] !== undefined);
    if (types.length === 0) errors.push(new FieldError(field, 'Required', 'must specify a volume type'));
    if (types.length > 1) {
      errors.push(
        new FieldError(`${field}.${types[1] ?? ''}`, 'Forbidden', 'may not specify more than 1 volume type'),
      );
    }
  });
  if (spec.containers.length === 0) errors.push(new FieldError('spec.containers', 'Required', ''));
  const names = new Set<string>();
  const check = (list: 'initContainers' | 'containers') =>
    (spec[list] ?? []).forEach((c, i) =>
      errors.push(...validateContainer(c, `spec.${list}[${i}]`, names, volumeNames)),
    );
  check('initContainers');
  check('containers');
  if (!RESTART_POLICIES.includes(spec.restartPolicy ?? '')) {
    errors.push(
      new FieldError('spec.restartPolicy', 'NotSupported', supported(RESTART_POLICIES), spec.restartPolicy),
    );
  }
  if (!DNS_POLICIES.includes(spec.dnsPolicy ?? '')) {
    errors.push(new FieldError('spec.dnsPolicy', 'NotSupported', supported(DNS_POLICIES), spec.dnsPolicy));
  }
  return errors;
}

function validateContainer(
  c: Container,
  field: string,
  names: Set<string>,
  volumes: Set<string>,
): FieldError[] {
  const errors: FieldError[] = [];
  if (typeof c.name !== 'string' || c.name === '') {
    errors.push(new FieldError(`${field}.name`, 'Required', ''));
  } else {
    for (const p of labelProblems(c.name)) errors.push(new FieldError(`${field}.name`, 'Invalid', p, c.name));
    if (names.has(c.name)) errors.push(new FieldError(`${field}.name`, 'Duplicate', '', c.name));
    names.add(c.name);
  }
  if (c.image === undefined || c.image.trim() === '')
    errors.push(new FieldError(`${field}.image`, 'Required', ''));
  if (!PULL_POLICIES.includes(c.imagePullPolicy ?? '')) {
    errors.push(
      new FieldError(`${field}.imagePullPolicy`, 'NotSupported', supported(PULL_POLICIES), c.imagePullPolicy),
    );
  }
  for (const kind of ['limits', 'requests'] as const) {
    for (const [resource, quantity] of Object.entries(c.resources?.[kind] ?? {})) {
      if (parseQuantity(quantity) === undefined) {
        const why = `quantities must match the regular expression '${QUANTITY_PATTERN}'`;
        errors.push(new FieldError(`${field}.resources.${kind}[${resource}]`, 'Invalid', why, quantity));
      }
    }
  }
  const { limits = {}, requests = {} } = c.resources ?? {};
  for (const resource of ['cpu', 'memory'] as const) {
    const limit = limits[resource];
    const request = requests[resource];
    if (limit === undefined || request === undefined) continue;
    const measure = resource === 'cpu' ? milliCpu : bytes;
    if (measure(request) > measure(limit)) {
      const why = `must be less than or equal to ${resource} limit of ${String(limit)}`;
      errors.push(new FieldError(`${field}.resources.requests`, 'Invalid', why, String(request)));
    }
  }
  const mountPaths = new Set<string>();
  (c.volumeMounts ?? []).forEach((mount, i) => {
    const at = `${field}.volumeMounts[${i}]`;
    if (!volumes.has(mount.name)) errors.push(new FieldError(`${at}.name`, 'NotFound', '', mount.name));
    if (typeof mount.mountPath !== 'string' || mount.mountPath === '') {
      errors.push(new FieldError(`${at}.mountPath`, 'Required', ''));
    } else if (mountPaths.has(mount.mountPath)) {
      errors.push(new FieldError(`${at}.mountPath`, 'Invalid', 'must be unique', mount.mountPath));
    }
    mountPaths.add(mount.mountPath);
  });
  (c.env ?? []).forEach((env, i) => {
    const at = `${field}.env[${i}]`;
    if (typeof env.name !== 'string' || env.name === '')
      errors.push(new FieldError(`${at}.name`, 'Required', ''));
    const from = env.valueFrom;
    if (from === undefined) return;
    if (env.value !== undefined && env.value !== '') {
      const why = 'may not be specified when `value` is not empty';
      errors.push(new FieldError(`${at}.valueFrom`, 'Invalid', why, ''));
    }
    const sources = Object.keys(from).filter((k) => from[k] !== undefined);
    if (sources.length !== 1) {
      const why = 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`';
      errors.push(new FieldError(`${at}.valueFrom`, 'Invalid', why, ''));
    }
    if (from.fieldRef !== undefined) {
      checkFieldPath(from.fieldRef.fieldPath, ENV_FIELDS, `${at}.valueFrom.fieldRef.fieldPath`, errors);
    }
    const ref = from.secretKeyRef;
    if (ref !== undefined && (ref.key ?? '') === '') {
      errors.push(new FieldError(`${at}.valueFrom.secretKeyRef.key`, 'Required', ''));
    }
  });
  return errors;
}
